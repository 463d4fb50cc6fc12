package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// A prior whose support's ends move with other parameters: uniform(0, 1 - a)
// or a truncation, normal(0, 1, upper: a). Its transform is recorded on the
// tape at every evaluation from the ends as they are then.

// end is one end of a moving support: its value, and its tape node when it
// depends on model parameters.
type end struct {
	x    float64
	v    ad.Var
	isAD bool
}

// truncMoves reports a truncation with a bound that depends on model
// parameters: its support then moves, even where at the starting point the
// family's own support is the tighter end (gamma(2, 1, lower: a) at a < 0).
func truncMoves(dv *DistVal) bool {
	tr, ok := dv.Family.(*dist.Truncated)
	if !ok {
		return false
	}
	l, u := tr.BoundParams()
	return eval.IsAD(dv.Params[l]) || eval.IsAD(dv.Params[u])
}

// movingEnds are the ends of the support of element i of prior: an end
// carries the bound's tape node when the bound is the active end (a
// truncation's lower bound below the family's support is not).
func movingEnds(prior *DistVal, i int) (lo, hi end) {
	li, hi_ := prior.Family.(dist.Bounded).BoundParams()
	p := make([]float64, len(prior.Params))
	vs := make([]ad.Var, len(prior.Params))
	isAD := make([]bool, len(prior.Params))
	var t *ad.Tape
	for j, par := range prior.Params {
		p[j], vs[j], isAD[j] = paramPeek(par, min(i, paramLen(par)-1))
		switch par := par.(type) {
		case *eval.ADNum:
			t = par.T
		case *eval.ADVec:
			t = par.T
		}
	}
	l, h := prior.Family.Support(p)
	lo = end{x: l, v: vs[li], isAD: isAD[li] && l == p[li]}
	hi = end{x: h, v: vs[hi_], isAD: isAD[hi_] && h == p[hi_]}
	// Which end is active is decided from the values now; a replay would
	// not decide again, so a moving bound that competes with an end of
	// the family's own makes the recording not replayable.
	if t != nil && (competes(prior, p, li, math.Inf(-1)) && isAD[li] || competes(prior, p, hi_, math.Inf(1)) && isAD[hi_]) {
		t.Taint()
	}
	return lo, hi
}

// competes reports whether the family has an end of its own on the side of
// bound parameter j: with the bound at inf (−∞ or +∞) the support still
// ends there.
func competes(prior *DistVal, p []float64, j int, inf float64) bool {
	q := append([]float64(nil), p...)
	q[j] = inf
	l, h := prior.Family.Support(q)
	if inf < 0 {
		return !math.IsInf(l, -1)
	}
	return !math.IsInf(h, 1)
}

// recordMoving records x(u) on (lo, hi) and log |dx/du| on the tape:
// lo + (hi − lo)·logistic(u) with log-Jacobian log(hi − lo) + log s(1 − s)
// when both ends are finite, lo + e^u or hi − e^u (log-Jacobian u) when one
// is. ok is false when the ends are empty or reversed.
func recordMoving(t *ad.Tape, u ad.Var, lo, hi end) (x, logJ ad.Var, ok bool) {
	if !(lo.x < hi.x) {
		return 0, 0, false
	}
	finLo, finHi := !math.IsInf(lo.x, -1), !math.IsInf(hi.x, 1)
	parents := []ad.Var{u}
	// at gives the current value of each end from the parents' values.
	loAt, hiAt := func([]float64) float64 { return lo.x }, func([]float64) float64 { return hi.x }
	if lo.isAD && finLo {
		k := len(parents)
		parents = append(parents, lo.v)
		loAt = func(v []float64) float64 { return v[k] }
	}
	if hi.isAD && finHi {
		k := len(parents)
		parents = append(parents, hi.v)
		hiAt = func(v []float64) float64 { return v[k] }
	}
	nLo := len(parents) > 1 && lo.isAD && finLo // lo is parents[1]
	switch {
	case finLo && finHi:
		x = t.Func(parents, func(v, d []float64) float64 {
			l, w, s := loAt(v), hiAt(v)-loAt(v), dist.Logistic(v[0])
			d[0] = w * s * (1 - s)
			for k := 1; k < len(d); k++ {
				d[k] = s // ∂x/∂hi
			}
			if nLo {
				d[1] = 1 - s // ∂x/∂lo
			}
			return l + w*s
		})
		logJ = t.Func(parents, func(v, d []float64) float64 {
			w, s := hiAt(v)-loAt(v), dist.Logistic(v[0])
			d[0] = 1 - 2*s
			for k := 1; k < len(d); k++ {
				d[k] = 1 / w
			}
			if nLo {
				d[1] = -1 / w
			}
			return math.Log(w) - dist.Softplus(-v[0]) - dist.Softplus(v[0])
		})
		return x, logJ, true
	case finLo:
		x = t.Func(parents, func(v, d []float64) float64 {
			e := math.Exp(v[0])
			d[0] = e
			if len(d) > 1 {
				d[1] = 1
			}
			return loAt(v) + e
		})
		return x, u, true
	case finHi:
		x = t.Func(parents, func(v, d []float64) float64 {
			e := math.Exp(v[0])
			d[0] = -e
			if len(d) > 1 {
				d[1] = 1
			}
			return hiAt(v) - e
		})
		return x, u, true
	}
	return u, t.Input(0), true
}
