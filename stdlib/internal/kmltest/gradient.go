package kmltest

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// CheckModelGradient compares the gradient of model name's log density (on
// the unconstrained scale, Jacobians included) with central finite
// differences at each point, to relative tolerance tol.
func CheckModelGradient(t testing.TB, in *eval.Interpreter, name string, tol float64, points ...[]float64) {
	t.Helper()
	m := Lookup[*eval.Model](t, in, name)
	c, err := model.CompileFor(in, m, nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewDensityFor(in)
	for _, q := range points {
		grad := make([]float64, len(q))
		if _, err := d.LogDensity(grad, q); err != nil {
			t.Fatal(err)
		}
		for i := range q {
			h := 1e-6
			qp := append([]float64(nil), q...)
			qm := append([]float64(nil), q...)
			qp[i] += h
			qm[i] -= h
			fp, _ := d.Value(qp)
			fm, _ := d.Value(qm)
			want := (fp - fm) / (2 * h)
			if math.Abs(grad[i]-want) > tol*math.Max(1, math.Abs(want)) {
				t.Errorf("at %v, %s: gradient %v, finite differences %v", q, c.Names()[i], grad[i], want)
			}
		}
	}
}
