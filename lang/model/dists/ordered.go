package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

// orderedTransform maps K reals onto an increasing vector, as Stan's
// ordered type: x₁ = u₁, xₖ = xₖ₋₁ + e^{uₖ}, with log |dx/du| = Σₖ₌₂ uₖ.
type orderedTransform struct{ p eval.ModelParam }

func (o orderedTransform) Free() int                     { return o.p.Dim() }
func (o orderedTransform) Size() int                     { return o.p.Dim() }
func (o orderedTransform) Names(string) []string         { return o.p.Names() }
func (o orderedTransform) NeedsPrior() bool              { return false }
func (o orderedTransform) Value(xs []float64) eval.Value { return plainValue(o.p, xs) }

func (o orderedTransform) Describe() string {
	return "ordered: x₁ = u₁, xₖ = xₖ₋₁ + exp(uₖ)"
}

func (o orderedTransform) Held(name string, v eval.Value) (eval.Value, error) {
	return plainHeld(o.p, v)
}

// Admits reports a vector whose elements strictly increase.
func (o orderedTransform) Admits(v eval.Value) bool {
	xs, _ := eval.ToFloats(v)
	for i := 1; i < len(xs); i++ {
		if !(xs[i] > xs[i-1]) {
			return false
		}
	}
	return true
}

func (o orderedTransform) Record(t *ad.Tape, u []ad.Var, _ Distribution) (eval.Value, []ad.Var, bool) {
	var logJ []ad.Var
	vs := make([]ad.Var, o.p.Size)
	vs[0] = u[0]
	for i := 1; i < len(vs); i++ {
		vs[i] = t.Add(vs[i-1], t.Exp(u[i]))
		logJ = append(logJ, u[i])
	}
	return &eval.ADVec{T: t, Vs: vs}, logJ, true
}

func (o orderedTransform) Constrain(dst, u []float64) []float64 {
	x := u[0]
	dst = append(dst, x)
	for i := 1; i < o.p.Dim(); i++ {
		x += math.Exp(u[i])
		dst = append(dst, x)
	}
	return dst
}

func (o orderedTransform) Unconstrain(name string, v eval.Value) ([]float64, error) {
	xs, err := plainFloats(o.p, v)
	if err != nil {
		return nil, err
	}
	q := make([]float64, len(xs))
	q[0] = xs[0]
	for i := 1; i < len(xs); i++ {
		if !(xs[i] > xs[i-1]) {
			return nil, fmt.Errorf("%s is ordered, but element %d (%s) is not above element %d (%s)", name, i+1, eval.FormatNumber(xs[i]), i, eval.FormatNumber(xs[i-1]))
		}
		q[i] = math.Log(xs[i] - xs[i-1])
	}
	return q, nil
}
