package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// Transform maps a parameter's free reals u onto the support of its prior,
// as NumPyro's biject_to(support) does: the sampler and the optimiser work
// on u, and the density adds log |dx/du|, the log-Jacobian. The registry
// (BijectTo) gives each parameter its Transform from its prior's Support on
// the model's first run; the model then only calls these methods.
type Transform interface {
	// Free is the number of free reals, Size the number of values (they
	// differ for a simplex, K − 1 and K).
	Free() int
	Size() int
	// Names are the values' names for the parameter called name: ell;
	// w.1, w.2, ...; L.1.1, L.2.1, ... (column by column).
	Names(name string) []string
	// Describe names the transform and the support it maps onto.
	Describe() string
	// Record puts the parameter's value at the free reals u on tape t with
	// its log-Jacobian terms (none for the identity). prior is the
	// parameter's prior as evaluated in this run; only a transform that
	// NeedsPrior reads it (it may be nil otherwise). ok is false when the
	// point has no value: bounds that moved until they cross.
	Record(t *ad.Tape, u []ad.Var, prior Distribution) (x eval.Value, logJ []ad.Var, ok bool)
	// NeedsPrior says Record reads the prior at every evaluation (bounds
	// that move with other parameters): the prior is then evaluated in
	// every run, and constraining a point needs a run of the model.
	NeedsPrior() bool
	// Constrain appends the values at the free reals u to dst, in the
	// order of Names. A transform that NeedsPrior cannot, and appends NaN.
	Constrain(dst, u []float64) []float64
	// Unconstrain maps a value the user gave for the parameter (init:, a
	// grid) to its free reals, or says why it cannot.
	Unconstrain(name string, v eval.Value) ([]float64, error)
	// Held checks a value the parameter is held at (fix:, logp) against
	// its shape and, where the prior's density cannot tell, its support;
	// it returns the value as the model sees it.
	Held(name string, v eval.Value) (eval.Value, error)
	// Admits reports whether a held value lies in the support in the ways
	// the prior's density does not check (an ordered vector's order); the
	// density of a point outside it is zero.
	Admits(x eval.Value) bool
	// Value is the parameter's value from its Size values.
	Value(xs []float64) eval.Value
}

// transform maps one unconstrained value u ∈ ℝ onto an interval: identity
// on ℝ, lo + e^u on (lo, ∞), hi − e^u on (−∞, hi), and
// lo + (hi − lo)·dist.Logistic(u) on (lo, hi), with log |dx/du|, the
// log-Jacobian. The interval and moving transforms apply it elementwise.
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
