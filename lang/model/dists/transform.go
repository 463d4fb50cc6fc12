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

// record puts x(u) and log |dx/du| on the tape, as Func nodes of u (a
// replay computes them again); hasJ is false for the identity, whose
// log-Jacobian is 0.
func (tr transform) record(t *ad.Tape, u ad.Var) (x, logJ ad.Var, hasJ bool) {
	us := []ad.Var{u}
	lo, hi := tr.lo, tr.hi
	switch {
	case tr.lower() && tr.upper():
		w := hi - lo
		x = t.Func(us, func(u, d []float64) float64 {
			s := dist.Logistic(u[0])
			d[0] = w * s * (1 - s)
			return lo + w*s
		})
		logJ = t.Func(us, func(u, d []float64) float64 {
			s := dist.Logistic(u[0])
			d[0] = 1 - 2*s
			return math.Log(w) - dist.Softplus(-u[0]) - dist.Softplus(u[0])
		})
		return x, logJ, true
	case tr.lower():
		return t.Func(us, func(u, d []float64) float64 {
			e := math.Exp(u[0])
			d[0] = e
			return lo + e
		}), u, true
	case tr.upper():
		return t.Func(us, func(u, d []float64) float64 {
			e := math.Exp(u[0])
			d[0] = -e
			return hi - e
		}), u, true
	}
	return u, 0, false
}

// describe names the transform and the support it maps onto.
func (tr transform) describe() string {
	return fmt.Sprintf("%s onto (%s, %s)", tr, eval.FormatNumber(tr.lo), eval.FormatNumber(tr.hi))
}
