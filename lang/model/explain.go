package model

import (
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// Explain compiles m as sample does (prior, likelihood and Jacobian, no
// parameter held), takes one gradient at the origin of the unconstrained
// scale and returns the density's ReplayStatus. pos is where a compile
// error with no position of its own is reported.
func Explain(th *eval.Thread, pos ast.Pos, m *eval.Model) (string, error) {
	c, err := Compile(th, pos, m, nil, Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		return "", err
	}
	return statusAt(th, c, nil)
}

// statusAt is the ReplayStatus of a fresh density of c after one gradient
// at q, whose NaN entries (coordinates a fit would choose) are taken at
// the origin, as all of them are when q is nil.
func statusAt(th *eval.Thread, c *Compiled, q []float64) (string, error) {
	p := make([]float64, c.Dim())
	if len(q) == len(p) {
		for i, x := range q {
			if !math.IsNaN(x) {
				p[i] = x
			}
		}
	}
	q = p
	d := c.NewDensity(th.Fork())
	if _, err := d.LogDensity(make([]float64, c.Dim()), q); err != nil {
		return "", err
	}
	return d.ReplayStatus(), nil
}
