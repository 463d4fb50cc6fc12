package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/inference"
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

// numbers reads a number or vector, on the tape or not.
func numbers(v eval.Value) ([]float64, bool, bool) {
	switch v := v.(type) {
	case eval.Num:
		return []float64{float64(v)}, false, true
	case *eval.ADNum:
		return []float64{v.Value()}, false, true
	case *eval.Vec:
		return slices.Clone(v.Data), true, true
	case *eval.ADVec:
		xs := make([]float64, len(v.Vs))
		for i, n := range v.Vs {
			xs[i] = v.T.Value(n)
		}
		return xs, true, true
	}
	return nil, false, false
}

// DerivedColumn is a derived quantity's place among a posterior's columns.
type DerivedColumn struct {
	Name   string
	Off    int // the first column, counted over every column
	Size   int // 0 for a number, K for a vector of K
	Vector bool
}

// columnNames are NAME, or NAME.1 ... NAME.K.
func (dc DerivedColumn) columnNames() []string {
	if !dc.Vector {
		return []string{dc.Name}
	}
	out := make([]string, dc.Size)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d", dc.Name, i+1)
	}
	return out
}

// addDerived appends the derived quantities of every draw to post's columns,
// each chain's computed by derivedChain on a Density from newDensity, at
// most workers chains at once; with constrain, post.Values are made too,
// each draw's constrained parameters first. The layout is the first draw's; a quantity
// whose length changes between draws is recorded as NaN where it differs,
// with a warning returned. count is called after each draw.
func addDerived(ctx context.Context, newDensity func() *Density, workers int, post *Posterior, draws [][][]float64, seed uint64, constrain bool, count func()) ([]string, error) {
	if len(draws) == 0 || len(draws[0]) == 0 {
		return nil, nil
	}
	seedsAt := drawSeeds(seed, len(draws[0]))
	pool := make([]inference.Model, max(1, min(workers, len(draws))))
	for i := range pool {
		pool[i] = newDensity()
	}
	chains := make([]*chainDerived, len(draws))
	errs := make([]error, len(draws))
	panics := inference.ForEach(pool, len(draws), func(c int, m inference.Model) {
		chains[c], errs[c] = derivedChain(ctx, m.(*Density), c, draws[c], seedsAt, constrain, count)
	})
	for c := range draws {
		if panics[c] != nil {
			return nil, panics[c]
		}
		if errs[c] != nil {
			return nil, errs[c]
		}
	}
	if constrain {
		for c, cd := range chains {
			for i := range draws[c] {
				post.Values[c][i] = cd.cons[i*cd.nPar : (i+1)*cd.nPar : (i+1)*cd.nPar]
			}
		}
	}
	first := chains[0].layout
	if len(first) == 0 {
		return nil, nil
	}
	off := len(post.Names)
	for _, dv := range first {
		dc := DerivedColumn{Name: dv.Name, Off: off, Vector: dv.Vector}
		if dv.Vector {
			dc.Size = len(dv.Values)
		}
		off += len(dv.Values)
		post.Derived = append(post.Derived, dc)
		post.Names = append(post.Names, dc.columnNames()...)
	}
	ragged := map[string]bool{}
	for c, cd := range chains {
		for name := range cd.ragged {
			ragged[name] = true
		}
		// Where the chain's layout is the first chain's, its rows are
		// copied; a quantity it lays out otherwise is NaN.
		for i := range draws[c] {
			row := post.Values[c][i]
			var src []float64
			if cd.width > 0 {
				src = cd.rows[i*cd.width : (i+1)*cd.width]
			}
			j := 0
			for k, dc := range post.Derived {
				n := max(dc.Size, 1)
				if k >= len(cd.layout) || cd.layout[k].Name != dc.Name || len(cd.layout[k].Values) != n {
					ragged[dc.Name] = true
					for range n {
						row = append(row, math.NaN())
					}
					if k < len(cd.layout) {
						j += len(cd.layout[k].Values)
					}
					continue
				}
				row = append(row, src[j:j+n]...)
				j += n
			}
			post.Values[c][i] = row
		}
	}
	var warnings []string
	for _, dc := range post.Derived {
		if ragged[dc.Name] {
			warnings = append(warnings, fmt.Sprintf("the derived quantity %s changes length between draws; it is NaN where it differs from the first draw's", dc.Name))
		}
	}
	return warnings, nil
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
		xs, _, _ := numbers(v)
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
