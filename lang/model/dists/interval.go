package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// intervalTransform maps each element of a number or vector parameter onto
// the same interval (transform), or leaves it alone on the real line.
type intervalTransform struct {
	p  eval.ModelParam
	tr transform
}

func (it intervalTransform) Free() int                     { return it.p.Dim() }
func (it intervalTransform) Size() int                     { return it.p.Dim() }
func (it intervalTransform) Names(string) []string         { return it.p.Names() }
func (it intervalTransform) Describe() string              { return it.tr.describe() }
func (it intervalTransform) NeedsPrior() bool              { return false }
func (it intervalTransform) Admits(eval.Value) bool        { return true }
func (it intervalTransform) Value(xs []float64) eval.Value { return plainValue(it.p, xs) }

func (it intervalTransform) Held(name string, v eval.Value) (eval.Value, error) {
	return plainHeld(it.p, v)
}

func (it intervalTransform) Record(t *ad.Tape, u []ad.Var, _ Distribution) (eval.Value, []ad.Var, bool) {
	var logJ []ad.Var
	if it.p.Size == 0 {
		x, j, ok := it.tr.record(t, u[0])
		if ok {
			logJ = append(logJ, j)
		}
		return &eval.ADNum{T: t, V: x}, logJ, true
	}
	vs := make([]ad.Var, it.p.Size)
	for i := range vs {
		x, j, ok := it.tr.record(t, u[i])
		vs[i] = x
		if ok {
			logJ = append(logJ, j)
		}
	}
	return &eval.ADVec{T: t, Vs: vs}, logJ, true
}

func (it intervalTransform) Constrain(dst, u []float64) []float64 {
	for i := 0; i < it.p.Dim(); i++ {
		x, _ := it.tr.constrain(u[i])
		dst = append(dst, x)
	}
	return dst
}

func (it intervalTransform) Unconstrain(name string, v eval.Value) ([]float64, error) {
	xs, err := plainFloats(it.p, v)
	if err != nil {
		return nil, err
	}
	q := make([]float64, len(xs))
	for i, x := range xs {
		u := it.tr.unconstrain(x)
		if math.IsNaN(u) {
			return nil, fmt.Errorf("%s = %s is outside the support of its prior", name, eval.FormatNumber(x))
		}
		q[i] = u
	}
	return q, nil
}

// plainHeld checks a held value against a number or vector parameter's
// shape: a number, or a vector of its length (a number is repeated).
func plainHeld(p eval.ModelParam, v eval.Value) (eval.Value, error) {
	if p.Size == 0 {
		x, ok := eval.ToFloat(v)
		if !ok {
			return nil, fmt.Errorf("%s is a number, got %s", p.Name, eval.Describe(v))
		}
		return eval.Num(x), nil
	}
	if x, ok := v.(eval.Num); ok {
		xs := make([]float64, p.Size)
		for i := range xs {
			xs[i] = float64(x)
		}
		return &eval.Vec{Data: xs}, nil
	}
	xs, ok := eval.ToFloats(v)
	if !ok || len(xs) != p.Size {
		return nil, fmt.Errorf("%s is a vector of length %d, got %s", p.Name, p.Size, eval.Describe(v))
	}
	return &eval.Vec{Data: xs}, nil
}

// plainFloats are a held value's elements, checked by plainHeld.
func plainFloats(p eval.ModelParam, v eval.Value) ([]float64, error) {
	fv, err := plainHeld(p, v)
	if err != nil {
		return nil, err
	}
	xs, _ := eval.ToFloats(fv)
	return xs, nil
}

// plainValue is a number or vector parameter's value from its elements.
func plainValue(p eval.ModelParam, xs []float64) eval.Value {
	if p.Size == 0 {
		return eval.Num(xs[0])
	}
	return &eval.Vec{Data: append([]float64(nil), xs[:p.Dim()]...)}
}
