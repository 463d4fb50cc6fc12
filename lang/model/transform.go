package model

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// transform maps a parameter's unconstrained value u ∈ ℝ onto the support
// of its prior: identity on ℝ, lo + e^u on (lo, ∞), hi − e^u on (−∞, hi),
// and lo + (hi − lo)·dist.Logistic(u) on (lo, hi). The sampler works on u and adds
// log |dx/du|, the log-Jacobian.
type transform struct {
	lo, hi float64
}

func (tr transform) lower() bool { return !math.IsInf(tr.lo, -1) }
func (tr transform) upper() bool { return !math.IsInf(tr.hi, 1) }

// String names the transform for messages.
func (tr transform) String() string {
	switch {
	case tr.lower() && tr.upper():
		return "scaled logit"
	case tr.lower() || tr.upper():
		return "log"
	}
	return "identity"
}

// constrain returns x(u) and log |dx/du|.
func (tr transform) constrain(u float64) (x, logJ float64) {
	switch {
	case tr.lower() && tr.upper():
		w := tr.hi - tr.lo
		s := dist.Logistic(u)
		return tr.lo + w*s, math.Log(w) - dist.Softplus(-u) - dist.Softplus(u)
	case tr.lower():
		return tr.lo + math.Exp(u), u
	case tr.upper():
		return tr.hi - math.Exp(u), u
	}
	return u, 0
}

// unconstrain is the inverse of constrain; it returns NaN outside the
// support.
func (tr transform) unconstrain(x float64) float64 {
	switch {
	case tr.lower() && tr.upper():
		if x <= tr.lo || x >= tr.hi {
			return math.NaN()
		}
		s := (x - tr.lo) / (tr.hi - tr.lo)
		return math.Log(s) - math.Log1p(-s)
	case tr.lower():
		if x <= tr.lo {
			return math.NaN()
		}
		return math.Log(x - tr.lo)
	case tr.upper():
		if x >= tr.hi {
			return math.NaN()
		}
		return math.Log(tr.hi - x)
	}
	return x
}

// record puts x(u) and log |dx/du| on the tape; hasJ is false for the
// identity, whose log-Jacobian is 0.
func (tr transform) record(t *ad.Tape, u ad.Var) (x, logJ ad.Var, hasJ bool) {
	uv := t.Value(u)
	switch {
	case tr.lower() && tr.upper():
		w := tr.hi - tr.lo
		s := dist.Logistic(uv)
		x = t.Node(tr.lo+w*s, []ad.Var{u}, []float64{w * s * (1 - s)})
		logJ = t.Node(math.Log(w)-dist.Softplus(-uv)-dist.Softplus(uv), []ad.Var{u}, []float64{1 - 2*s})
		return x, logJ, true
	case tr.lower():
		e := math.Exp(uv)
		return t.Node(tr.lo+e, []ad.Var{u}, []float64{e}), u, true
	case tr.upper():
		e := math.Exp(uv)
		return t.Node(tr.hi-e, []ad.Var{u}, []float64{-e}), u, true
	}
	return u, 0, false
}

// describe names the transform and the support it maps onto.
func (tr transform) describe() string {
	return fmt.Sprintf("%s onto (%s, %s)", tr, eval.FormatNumber(tr.lo), eval.FormatNumber(tr.hi))
}
