package model

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

var logSqrt2Pi = 0.5 * math.Log(2*math.Pi)

// normalSum is logDensity on a tape for normal(mu, sigma): the usual
// `y ~ normal(mu, sigma)` and `eta[K] ~ normal(0, 1)`, each parameter a
// number or a vector, data or on the tape. It takes log σ once when σ is one
// number, checks the parameters once, reads elements without the generic
// loop's per-element family calls, and writes the partials straight into
// the node. Its arithmetic is the generic loop's, term by term and in the
// same order, so the value and the gradient are the same to the bit. ok is
// false where the generic loop must run: nothing on the tape, another
// family, or a point it has to report.
func (d *DistVal) normalSum(t *ad.Tape, xs obsElems) (v eval.Value, ok bool) {
	if d.Family.Name() != "normal" || d.Label != "" || len(d.Params) != 2 {
		return nil, false
	}
	mu, muOne, ok1 := normalParam(d.Params[0])
	sig, sigOne, ok2 := normalParam(d.Params[1])
	if !ok1 || !ok2 || !(xs.t != nil || mu.t != nil || sig.t != nil) {
		return nil, false
	}
	for i := range mu.len() {
		if m, _, _ := mu.at(i); math.IsNaN(m) || math.IsInf(m, 0) {
			return nil, false // the generic loop names the element
		}
	}
	for i := range sig.len() {
		if s, _, _ := sig.at(i); !(s > 0) || math.IsInf(s, 1) {
			return nil, false
		}
	}
	n := xs.len()
	// One partial per point for x and each vector parameter on the tape,
	// one summed partial for a number on the tape.
	np := 0
	for j, o := range []obsElems{xs, mu, sig} {
		switch {
		case o.t == nil:
		case j == 1 && muOne || j == 2 && sigOne:
			np++
		default:
			np += n
		}
	}
	node, par, dp := t.Open(np)
	logS := 0.0
	if sig.len() == 1 {
		s, _, _ := sig.at(0)
		logS = math.Log(s)
	}
	total, dMu, dS := 0.0, 0.0, 0.0
	k := 0
	for i := 0; i < n; i++ {
		x, xv, _ := xs.at(i)
		m, mv, _ := mu.at(min(i, mu.len()-1))
		s, sv, _ := sig.at(min(i, sig.len()-1))
		ls := logS
		if sig.len() > 1 {
			ls = math.Log(s)
		}
		z := (x - m) / s
		lp := -0.5*z*z - ls - logSqrt2Pi
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			// The node stays on the tape unused: nothing refers to it.
			return nil, false
		}
		total += lp
		if xs.t != nil {
			par[k], dp[k] = xv, -z/s
			k++
		}
		if mu.t != nil && !muOne {
			par[k], dp[k] = mv, z/s
			k++
		}
		if sig.t != nil && !sigOne {
			par[k], dp[k] = sv, (z*z-1)/s
			k++
		}
		dMu += z / s
		dS += (z*z - 1) / s
	}
	if mu.t != nil && muOne {
		par[k], dp[k] = mu.vs[0], dMu
		k++
	}
	if sig.t != nil && sigOne {
		par[k], dp[k] = sig.vs[0], dS
	}
	t.SetValue(node, total)
	return &eval.ADNum{T: t, V: node}, true
}

// normalParam is a parameter's elements, and whether it is one number (a
// vector of one element applies to every point too, but as the generic loop
// records it: as a vector).
func normalParam(p eval.Value) (o obsElems, one bool, ok bool) {
	switch p := p.(type) {
	case eval.Num, *eval.Vec, *eval.ADNum, *eval.ADVec:
		o, _ = elemsOf(p)
		_, isNum := p.(eval.Num)
		_, isAD := p.(*eval.ADNum)
		return o, isNum || isAD, true
	}
	return obsElems{}, false, false
}
