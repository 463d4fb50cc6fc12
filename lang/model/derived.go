package model

import (
	"errors"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// Derived quantities (`NAME = EXPR` in a model) that are numbers or vectors
// are recorded for every draw, after the parameters, as Stan records
// transformed parameters: they appear in the summary, the JSON, draws() and
// the saved draws. Other derived values (kernels, records) are not numbers
// and are left out.

// DerivedValue is one numeric derived quantity at one point.
type DerivedValue struct {
	Name   string
	Values []float64
	Vector bool // a vector (NAME.1, NAME.2, ...), not a number
}

// Derived evaluates the model's derived quantities at the unconstrained
// point q, skipping the priors and observations (only the statements that
// define them run).
func (d *Density) Derived(q []float64) ([]DerivedValue, error) {
	var dc DerivedCollector
	if err := d.Run(q, &dc); err != nil {
		return nil, err
	}
	return dc.Out, nil
}

// generated runs a generated block on the values of the model's names as
// plain numbers (off the tape), telling obs each result.
func (d *Density) generated(g *ast.Generated, env *eval.Env, obs Observer) error {
	genv := eval.NewEnv(env)
	ast.Inspect(g, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if v, ok := env.Lookup(id.Name); ok {
				genv.Define(id.Name, plain(v))
			}
		}
		return true
	})
	for _, a := range g.Body {
		v, err := d.th.Expr(a.Value, genv)
		if err != nil {
			var ae *ast.Error
			if !errors.As(err, &ae) || !ae.Pos.IsValid() {
				ae = &ast.Error{Pos: a.Name.At, Msg: err.Error(), Cause: err}
			}
			return &GeneratedError{Err: ae}
		}
		genv.Define(a.Name.Name, v)
		obs.Generated(a.Name.Name, v)
	}
	return nil
}

// GeneratedError is an error in a model's generated block, positioned in
// the block (at the failing call, or at the statement), so that the
// fitting builtin reports it there rather than at its own call.
type GeneratedError struct{ Err *ast.Error }

func (e *GeneratedError) Error() string { return e.Err.Error() }
func (e *GeneratedError) Unwrap() error { return e.Err }

// plain is v's value off the tape: numbers, vectors and matrices lose their
// tape nodes; other values are kept.
func plain(v eval.Value) eval.Value {
	switch v := v.(type) {
	case *eval.ADNum:
		return eval.Num(v.Value())
	case *eval.ADVec:
		xs, _, _ := dists.Numbers(v)
		return &eval.Vec{Data: xs}
	case *eval.ADMat:
		return eval.NewMat(v.Dense())
	}
	return v
}

// DerivedAt evaluates the derived quantities and the generated block at q,
// the generated block's random calls seeded from seeds.
func (d *Density) DerivedAt(q []float64, seeds *rand.Rand) ([]DerivedValue, error) {
	d.th.SetSeeds(seeds)
	defer d.th.SetSeeds(nil)
	dc := DerivedCollector{Generate: true}
	if err := d.Run(q, &dc); err != nil {
		return nil, err
	}
	return dc.Out, nil
}
