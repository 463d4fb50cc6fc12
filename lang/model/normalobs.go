package model

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

var logSqrt2Pi = 0.5 * math.Log(2*math.Pi)

// normalSum is logDensity on a tape for normal(mu, sigma) with σ one number
// (a vector of locations, data or parameters): the usual `y ~ normal(mu,
// sigma)` and `eta[K] ~ normal(0, 1)`. It takes log σ once, checks σ once,
// reads elements without the generic loop's per-element family calls, and
// writes the partials straight into the node. Its arithmetic is the generic
// loop's, term by term and in the same order, so the value and the gradient
// are the same to the bit. ok is false where the generic loop must run:
// nothing on the tape, another family, or a point it has to report.
func (d *DistVal) normalSum(t *ad.Tape, xs obsElems, width int) (v eval.Value, ok bool) {
	if d.Family.Name() != "normal" || d.Label != "" || len(d.Params) != 2 {
		return nil, false
	}
	var mu obsElems
	var muScalar bool
	switch p := d.Params[0].(type) {
	case eval.Num, *eval.Vec, *eval.ADNum, *eval.ADVec:
		mu, _ = elemsOf(p)
		_, muScalar = p.(*eval.ADNum)
	default:
		return nil, false
	}
	var s float64
	var sv ad.Var
	var sAD bool
	switch p := d.Params[1].(type) {
	case eval.Num:
		s = float64(p)
	case *eval.ADNum:
		s, sv, sAD = p.Value(), p.V, true
	default:
		return nil, false
	}
	n := xs.len()
	if !(xs.t != nil || mu.t != nil || sAD) || !(s > 0) || math.IsInf(s, 1) {
		return nil, false
	}
	for i := range mu.len() {
		if m, _, _ := mu.at(i); math.IsNaN(m) || math.IsInf(m, 0) {
			return nil, false // the generic loop names the element
		}
	}
	np := 0
	if xs.t != nil {
		np += n
	}
	if mu.t != nil && !muScalar {
		np += n
	}
	if muScalar {
		np++
	}
	if sAD {
		np++
	}
	node, par, dp := t.Open(np)
	logS := math.Log(s)
	total, dMu, dS := 0.0, 0.0, 0.0
	k := 0
	for i := 0; i < n; i++ {
		x, xv, _ := xs.at(i)
		m, mv, _ := mu.at(min(i, width-1))
		z := (x - m) / s
		lp := -0.5*z*z - logS - logSqrt2Pi
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			// The node stays on the tape unused: nothing refers to it.
			return nil, false
		}
		total += lp
		if xs.t != nil {
			par[k], dp[k] = xv, -z/s
			k++
		}
		if mu.t != nil && !muScalar {
			par[k], dp[k] = mv, z/s
			k++
		}
		dMu += z / s
		dS += (z*z - 1) / s
	}
	if muScalar {
		par[k], dp[k] = mu.vs[0], dMu
		k++
	}
	if sAD {
		par[k], dp[k] = sv, dS
	}
	t.SetValue(node, total)
	return &eval.ADNum{T: t, V: node}, true
}
