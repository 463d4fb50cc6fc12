package dists

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// sumPlan is the generic loop of logDensity, Σᵢ log p(xᵢ | θᵢ), as a
// function of the values of its tape parents, so that the tape records it
// with Func and a replay computes it again. The parents are, element by
// element, x (when on the tape) and each vector parameter on the tape, then
// each number parameter on the tape once (its partial is summed over the
// elements, in element order).
type sumPlan struct {
	fam      dist.Family
	n, width int
	x        []float64 // x as data, when it is not on the tape
	xad      bool
	par      []planParam
	anyAD    bool
	parents  []ad.Var
	p, dp    []float64
	bad      int // the element eval last failed at
	// passed is the number of leading elements whose parameters, all
	// data (no parameter on the tape), passed the family's check in an
	// earlier eval: the same numbers pass again, so replays skip it.
	passed int
}

// planParam is one parameter: constant values (one, or one per element),
// or on the tape, a vector (one parent per element) or a number (the
// parent at index at).
type planParam struct {
	f       []float64
	ad, vec bool
	at      int
}

// plan lays out d's parameters and xs for eval.
func (d *DistVal) plan(xs obsElems, n, width int) *sumPlan {
	np := len(d.Params)
	pl := &sumPlan{fam: d.Family, n: n, width: width, xad: xs.t != nil,
		par: make([]planParam, np), p: make([]float64, np), dp: make([]float64, np)}
	if !pl.xad {
		pl.x = xs.f
	}
	for j, par := range d.Params {
		switch par := par.(type) {
		case eval.Num:
			pl.par[j].f = []float64{float64(par)}
		case *eval.Vec:
			pl.par[j].f = par.Data
		case *eval.ADNum, *eval.ADVec:
			pl.par[j].ad = true
			_, pl.par[j].vec = par.(*eval.ADVec)
			pl.anyAD = true
		default:
			x, _ := eval.ToFloat(par)
			pl.par[j].f = []float64{x}
		}
	}
	for i := range n {
		if pl.xad {
			pl.parents = append(pl.parents, xs.vs[i])
		}
		for _, par := range d.Params {
			if a, ok := par.(*eval.ADVec); ok {
				pl.parents = append(pl.parents, a.Vs[min(i, width-1)])
			}
		}
	}
	for j, par := range d.Params {
		if a, ok := par.(*eval.ADNum); ok {
			pl.par[j].at = len(pl.parents)
			pl.parents = append(pl.parents, a.V)
		}
	}
	return pl
}

// eval is the sum at the parents' values vals, with the partials written
// into dd (zero on entry); with dd nil it takes no derivatives (no tape).
// bad is the first element whose parameters fail the family's check or
// whose log density is not finite, −1 if none: the sum is then not valid.
func (pl *sumPlan) eval(vals, dd []float64) (total float64, bad int) {
	p, dp := pl.p, pl.dp
	k := 0
	for i := range pl.n {
		var xi float64
		xk := k
		if pl.xad {
			xi = vals[k]
			k++
		} else {
			xi = pl.x[i]
		}
		for j, pp := range pl.par {
			switch {
			case pp.vec:
				p[j] = vals[k]
				k++
			case pp.ad:
				p[j] = vals[pp.at]
			default:
				p[j] = pp.f[min(i, len(pp.f)-1)]
			}
		}
		if (i == 0 || pl.width > 1) && i >= pl.passed {
			if pl.fam.Check(p) != nil {
				pl.bad = i
				return 0, i
			}
			if !pl.anyAD {
				pl.passed = i + 1
			}
		}
		var lp, dx float64
		if dd == nil || !(pl.xad || pl.anyAD) {
			lp = pl.fam.LogProb(xi, p)
		} else {
			lp, dx = pl.fam.LogProbGrad(dp, xi, p)
		}
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			pl.bad = i
			return 0, i
		}
		total += lp
		if dd == nil {
			continue
		}
		if pl.xad {
			dd[xk] = dx
		}
		vk := xk
		if pl.xad {
			vk++
		}
		for j, pp := range pl.par {
			switch {
			case pp.vec:
				dd[vk] = dp[j]
				vk++
			case pp.ad:
				dd[pp.at] += dp[j]
			}
		}
	}
	pl.bad = -1
	return total, -1
}

// elementError is the error of element i, where eval failed: its
// parameters fail the family's check, or x is outside the support, or the
// log density is not finite.
func (d *DistVal) elementError(i, n, width int, xs obsElems, what string) error {
	p := make([]float64, len(d.Params))
	for j, par := range d.Params {
		p[j], _, _ = paramAt(par, min(i, width-1))
	}
	if i == 0 || width > 1 {
		if err := d.Family.Check(p); err != nil {
			if width > 1 {
				return fmt.Errorf("%v (element %d)", err, i+1)
			}
			return err
		}
	}
	xi, _, _ := xs.at(i)
	lo, hi := d.Family.Support(p)
	if xi < lo || xi > hi || math.IsNaN(xi) || (d.Family.Discrete() && xi != math.Trunc(xi)) {
		if n == 1 {
			return &SupportError{fmt.Sprintf("%s = %s is outside the support of %s", what, eval.FormatNumber(xi), d)}
		}
		return &SupportError{fmt.Sprintf("%s has element %d = %s outside the support of %s", what, i+1, eval.FormatNumber(xi), d)}
	}
	return fmt.Errorf("the log density of %s at %s is not finite", d, eval.FormatNumber(xi))
}
