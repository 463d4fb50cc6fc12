package dists

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
	"github.com/kml-lang/kml/runtime/linalg"
)

// DistVal is a distribution as a value: a family and its parameters. Each
// parameter is a number or a vector (a vectorised parameter, one value per
// observation), and any of them may depend on model parameters; the log
// density then records its derivatives on the tape.
type DistVal struct {
	Family dist.Family
	Params []eval.Value
	// Label is how the distribution prints when it is not Family(params)
	// (a mixture).
	Label string
	// Ordered makes it the prior of an ordered vector, ordered(d): the
	// parameter's elements increase, and d's density applies to them.
	Ordered bool
}

var _ eval.ADHolder = (*DistVal)(nil)

func (d *DistVal) Type() string { return "distribution" }

func (d *DistVal) String() string {
	if d.Ordered {
		c := *d
		c.Ordered = false
		return "ordered(" + c.String() + ")"
	}
	if d.Label != "" {
		return d.Label
	}
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		parts[i] = p.String()
	}
	if tr, ok := d.Family.(*dist.Truncated); ok {
		return tr.Format(parts)
	}
	return d.Family.Name() + "(" + strings.Join(parts, ", ") + ")"
}

// HasAD reports whether a parameter depends on model parameters.
func (d *DistVal) HasAD() bool {
	for _, p := range d.Params {
		if eval.IsAD(p) {
			return true
		}
	}
	return false
}

// Scalar returns the parameters as numbers when none is a vector.
func (d *DistVal) Scalar() ([]float64, bool) {
	out := make([]float64, len(d.Params))
	for i, p := range d.Params {
		x, ok := eval.ToFloat(p)
		if !ok {
			return nil, false
		}
		switch p.(type) {
		case *eval.Vec, *eval.ADVec:
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

// Moments gives mean(d) and sd(d).
func (d *DistVal) Moments() (mean, sd float64) {
	p, ok := d.Scalar()
	if !ok {
		return math.NaN(), math.NaN()
	}
	return d.Family.Mean(p), d.Family.StdDev(p)
}

// width is the number of elements the distribution's vectorised parameters
// have (1 when all are scalars), or an error when two disagree.
func (d *DistVal) width() (int, error) {
	n := 1
	for i, p := range d.Params {
		var k int
		switch p := p.(type) {
		case *eval.Vec:
			k = len(p.Data)
		case *eval.ADVec:
			k = len(p.Vs)
		default:
			continue
		}
		if n != 1 && k != n {
			return 0, fmt.Errorf("%s: parameter %s has %d values but another has %d", d.Family.Name(), d.Family.ParamNames()[i], k, n)
		}
		n = k
	}
	return n, nil
}

// paramAt returns parameter j for element i, and its tape node when it
// depends on model parameters (ok false otherwise).
func paramAt(p eval.Value, i int) (x float64, v ad.Var, isAD bool) {
	switch p := p.(type) {
	case eval.Num:
		return float64(p), 0, false
	case *eval.Vec:
		return p.Data[i], 0, false
	case *eval.ADNum:
		return p.Value(), p.V, true
	case *eval.ADVec:
		return p.T.Value(p.Vs[i]), p.Vs[i], true
	}
	x, _ = eval.ToFloat(p)
	return x, 0, false
}

// paramPeek is paramAt for a caller that re-makes what it decides with
// the value inside the Func it records (the recording stays replayable).
func paramPeek(p eval.Value, i int) (x float64, v ad.Var, isAD bool) {
	switch p := p.(type) {
	case *eval.ADNum:
		return p.T.Peek(p.V), p.V, true
	case *eval.ADVec:
		return p.T.Peek(p.Vs[i]), p.Vs[i], true
	}
	return paramAt(p, i)
}

// obsElems is data (or a parameter's value) as a flat list of elements, each
// a number or a tape node.
type obsElems struct {
	f  []float64
	t  *ad.Tape
	vs []ad.Var
}

func (o obsElems) len() int {
	if o.t != nil {
		return len(o.vs)
	}
	return len(o.f)
}

func (o obsElems) at(i int) (float64, ad.Var, bool) {
	if o.t != nil {
		return o.t.Value(o.vs[i]), o.vs[i], true
	}
	return o.f[i], 0, false
}

// elemsOf flattens data for an elementwise log density: numbers, vectors,
// and matrices (all elements, row by row).
func elemsOf(v eval.Value) (obsElems, bool) {
	switch v := v.(type) {
	case eval.Num:
		return obsElems{f: []float64{float64(v)}}, true
	case *eval.Vec:
		return obsElems{f: v.Data}, true
	case *eval.Mat:
		return obsElems{f: linalg.RowMajor(v.M)}, true
	case *eval.ADNum:
		return obsElems{t: v.T, vs: []ad.Var{v.V}}, true
	case *eval.ADVec:
		return obsElems{t: v.T, vs: v.Vs}, true
	}
	return obsElems{}, false
}

// SupportError is the error of a log density evaluated outside the
// distribution's support: the density is zero there.
type SupportError struct{ Msg string }

func (e *SupportError) Error() string { return e.Msg }

// LogDensity sums the log density of d over the elements of x. With a tape
// it records the sum as one node whose parents are every tape node among the
// parameters and x, and returns it; without one it returns a eval.Num. An error
// names the first element outside the support or parameter out of domain.
func (d *DistVal) LogDensity(t *ad.Tape, x eval.Value, what string) (eval.Value, error) {
	xs, ok := elemsOf(x)
	if !ok {
		return nil, fmt.Errorf("%s must be numbers, got %s", what, eval.Describe(x))
	}
	width, err := d.width()
	if err != nil {
		return nil, err
	}
	n := xs.len()
	if width != 1 && width != n {
		return nil, fmt.Errorf("%s has %d values but the parameters of %s have %d", what, n, d.Family.Name(), width)
	}
	if t != nil {
		if lp, ok := d.normalSum(t, xs); ok {
			return lp, nil
		}
		if lp, ok := d.sumGrad(t, xs); ok {
			return lp, nil
		}
	}
	pl := d.plan(xs, n, width)
	if t == nil {
		total, bad := pl.eval(nil, nil)
		if bad >= 0 {
			return nil, d.elementError(bad, n, width, xs, what)
		}
		return eval.Num(total), nil
	}
	v := t.Func(pl.parents, func(vals, dd []float64) float64 {
		total, bad := pl.eval(vals, dd)
		if bad >= 0 {
			return math.NaN() // the walk reports the element
		}
		return total
	})
	if math.IsNaN(t.Peek(v)) {
		// The node stays on the tape unused: nothing refers to it.
		return nil, d.elementError(pl.bad, n, width, xs, what)
	}
	return &eval.ADNum{T: t, V: v}, nil
}

// tape is the tape any parameter or x lives on, or nil.
func (d *DistVal) tape(xs obsElems) *ad.Tape {
	if xs.t != nil {
		return xs.t
	}
	for _, p := range d.Params {
		switch p := p.(type) {
		case *eval.ADNum:
			return p.T
		case *eval.ADVec:
			return p.T
		}
	}
	return nil
}

// logPDFWidth is the width of d's parameters and the number of values in
// xs, which must agree unless the parameters are scalars.
func (d *DistVal) logPDFWidth(pos ast.Pos, xs obsElems) (width, n int, err error) {
	if width, err = d.width(); err != nil {
		return 0, 0, ast.Errorf(pos, "%v", err)
	}
	n = xs.len()
	if width != 1 && width != n {
		return 0, 0, ast.Errorf(pos, "logpdf: %d values but the parameters of %s have %d", n, d.Family.Name(), width)
	}
	return width, n, nil
}

// logPDFTape is logpdf inside a model: one tape node per element, each the
// log density of that element with its own parameters (−Inf outside the
// support), so that `target += logpdf(d, y)` differentiates.
func (d *DistVal) logPDFTape(pos ast.Pos, t *ad.Tape, x eval.Value, xs obsElems) (eval.Value, error) {
	width, n, err := d.logPDFWidth(pos, xs)
	if err != nil {
		return nil, err
	}
	out := make([]ad.Var, n)
	one := &DistVal{Family: d.Family, Params: make([]eval.Value, len(d.Params))}
	for i := range out {
		for j, par := range d.Params {
			v, node, isAD := paramPeek(par, min(i, width-1)) // v only when constant
			if isAD {
				one.Params[j] = &eval.ADNum{T: t, V: node}
			} else {
				one.Params[j] = eval.Num(v)
			}
		}
		var xi eval.Value
		if xs.t != nil {
			xi = &eval.ADNum{T: t, V: xs.vs[i]}
		} else {
			xi = eval.Num(xs.f[i])
		}
		lp, err := one.LogDensity(t, xi, "x")
		var se *SupportError
		switch {
		case errors.As(err, &se):
			out[i] = t.Input(math.Inf(-1))
			continue
		case err != nil:
			return nil, ast.Errorf(pos, "%v", err)
		}
		switch lp := lp.(type) {
		case *eval.ADNum:
			out[i] = lp.V
		case eval.Num:
			out[i] = t.Input(float64(lp))
		}
	}
	if _, ok := x.(eval.Num); ok || (xs.t != nil && len(xs.vs) == 1 && !isVec(x)) {
		return &eval.ADNum{T: t, V: out[0]}, nil
	}
	return &eval.ADVec{T: t, Vs: out}, nil
}

func isVec(v eval.Value) bool {
	switch v.(type) {
	case *eval.Vec, *eval.ADVec:
		return true
	}
	return false
}

func anyTrue(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}

// LogPDF is logpdf(d, x) for a program: the log density at each element of
// x, elementwise (a number for a number).
func (d *DistVal) LogPDF(pos ast.Pos, x eval.Value) (eval.Value, error) {
	xs, ok := elemsOf(x)
	if !ok {
		return nil, ast.Errorf(pos, "logpdf needs numbers, got %s", eval.Describe(x))
	}
	if t := d.tape(xs); t != nil {
		return d.logPDFTape(pos, t, x, xs)
	}
	width, n, err := d.logPDFWidth(pos, xs)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	p := make([]float64, len(d.Params))
	for i := range out {
		for j, par := range d.Params {
			p[j], _, _ = paramAt(par, min(i, width-1))
		}
		if err := d.Family.Check(p); err != nil {
			return nil, ast.Errorf(pos, "%v", err)
		}
		out[i] = d.Family.LogProb(xs.f[i], p)
	}
	switch x.(type) {
	case eval.Num:
		return eval.Num(out[0]), nil
	case *eval.Mat:
		r, c := x.(*eval.Mat).Dims()
		return eval.NewMat(mat.NewDense(r, c, out)), nil
	}
	return &eval.Vec{Data: out}, nil
}
