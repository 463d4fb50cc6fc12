package dists

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
// loop's per-element family calls, and records the sum as one Func node
// (replayable). Its arithmetic is the generic loop's, term by term and in the
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
	n := xs.len()
	// The parents, point by point: x and each vector parameter on the
	// tape; then a number parameter on the tape once, with its summed
	// partial.
	var parents []ad.Var
	for i := range n {
		if xs.t != nil {
			parents = append(parents, xs.vs[i])
		}
		if mu.t != nil && !muOne {
			parents = append(parents, mu.vs[min(i, mu.len()-1)])
		}
		if sig.t != nil && !sigOne {
			parents = append(parents, sig.vs[min(i, sig.len()-1)])
		}
	}
	muAt, sigAt := len(parents), len(parents)
	if mu.t != nil && muOne {
		parents = append(parents, mu.vs[0])
		sigAt++
	}
	if sig.t != nil && sigOne {
		parents = append(parents, sig.vs[0])
	}
	// Where each point's parents sit among the Func's values: a stride of
	// the per-point parents, at these offsets (−1: not a parent).
	stride, xo, mo, so := 0, -1, -1, -1
	if xs.t != nil {
		xo, stride = stride, stride+1
	}
	if mu.t != nil && !muOne {
		mo, stride = stride, stride+1
	}
	if sig.t != nil && !sigOne {
		so, stride = stride, stride+1
	}
	// The logs of a σ that is data are taken once, here, rather than at
	// every replay (the same numbers: math.Log of the same values).
	var logSig []float64
	if sig.t == nil {
		logSig = make([]float64, len(sig.f))
		for j, x := range sig.f {
			logSig[j] = math.Log(x)
		}
	}
	nx, nm, ns := len(xs.f), len(mu.f), len(sig.f)
	sum := func(vals, dp []float64) float64 {
		logS := 0.0 // log σ once when σ is one number
		total, dMu, dS := 0.0, 0.0, 0.0
		for i := 0; i < n; i++ {
			base := i * stride
			var x, m, s float64
			if xo >= 0 {
				x = vals[base+xo]
			} else {
				x = xs.f[min(i, nx-1)]
			}
			switch {
			case mo >= 0:
				m = vals[base+mo]
			case mu.t != nil:
				m = vals[muAt]
			default:
				m = mu.f[min(i, nm-1)]
			}
			switch {
			case so >= 0:
				s = vals[base+so]
			case sig.t != nil:
				s = vals[sigAt]
			default:
				s = sig.f[min(i, ns-1)]
			}
			if math.IsNaN(m) || math.IsInf(m, 0) || !(s > 0) || math.IsInf(s, 1) {
				return math.NaN()
			}
			ls := logS
			switch {
			case logSig != nil:
				ls = logSig[min(i, ns-1)]
			case i == 0 && sigOne:
				logS = math.Log(s)
				ls = logS
			case !sigOne:
				ls = math.Log(s)
			}
			z := (x - m) / s
			lp := -0.5*z*z - ls - logSqrt2Pi
			if math.IsInf(lp, -1) || math.IsNaN(lp) {
				return math.NaN()
			}
			total += lp
			// −z/s is −(z/s) to the bit (division rounds symmetrically),
			// so each quotient is taken once.
			zs, ws := z/s, (z*z-1)/s
			if xo >= 0 {
				dp[base+xo] = -zs
			}
			if mo >= 0 {
				dp[base+mo] = zs
			}
			if so >= 0 {
				dp[base+so] = ws
			}
			dMu += zs
			dS += ws
		}
		if mu.t != nil && muOne {
			dp[muAt] = dMu
		}
		if sig.t != nil && sigOne {
			dp[sigAt] = dS
		}
		return total
	}
	f := ad.Fn(sum)
	if !normalSumGeneral {
		if lean := normalSumLean(n, xs, mu, sig, muOne, sigOne, logSig); lean != nil {
			f = lean
		}
	}
	node := t.Func(parents, f)
	if math.IsNaN(t.Peek(node)) {
		// The node stays on the tape unused: nothing refers to it.
		return nil, false
	}
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

// normalSumGeneral makes normalSum record its general sum only (tests
// compare the lean sums with it).
var normalSumGeneral bool

// normalSumLean is normalSum's sum for the commonest layouts, where every
// point has at most one parent on the tape: x on the tape with μ and σ data
// (a parameter's prior, `eta[K] ~ normal(0, 1)`); x data with μ one per
// point on the tape and σ data (`y ~ normal(mu + tau * eta, sigma)`), or
// with μ one per point and σ one number, both on the tape (`y ~ normal(a +
// X @ b, s)`). Data are spread to one element per point beforehand and the
// checks of data, which the recording passed, are not repeated; each
// point's arithmetic is the general sum's, in the same order, so the value
// and the partials are the same to the bit (TestNormalSumLeanSameBits).
// Points the general sum turns into NaN still give NaN. It is nil for
// other layouts.
func normalSumLean(n int, xs, mu, sig obsElems, muOne, sigOne bool, logSig []float64) ad.Fn {
	if n == 0 {
		return nil
	}
	spread := func(f []float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = f[min(i, len(f)-1)]
		}
		return out
	}
	switch {
	case xs.t != nil && mu.t == nil && sig.t == nil:
		m, s, ls := spread(mu.f), spread(sig.f), spread(logSig)
		return func(vals, dp []float64) float64 {
			vals, dp = vals[:n], dp[:n]
			m, s, ls := m[:n], s[:n], ls[:n]
			total := 0.0
			for i, x := range vals {
				z := (x - m[i]) / s[i]
				lp := -0.5*z*z - ls[i] - logSqrt2Pi
				if math.IsInf(lp, -1) || math.IsNaN(lp) {
					return math.NaN()
				}
				total += lp
				dp[i] = -(z / s[i])
			}
			return total
		}
	case xs.t == nil && mu.t != nil && !muOne && sig.t == nil:
		x, s, ls := spread(xs.f), spread(sig.f), spread(logSig)
		return func(vals, dp []float64) float64 {
			vals, dp = vals[:n], dp[:n]
			x, s, ls := x[:n], s[:n], ls[:n]
			total := 0.0
			for i, m := range vals {
				if math.IsNaN(m) || math.IsInf(m, 0) {
					return math.NaN()
				}
				z := (x[i] - m) / s[i]
				lp := -0.5*z*z - ls[i] - logSqrt2Pi
				if math.IsInf(lp, -1) || math.IsNaN(lp) {
					return math.NaN()
				}
				total += lp
				dp[i] = z / s[i]
			}
			return total
		}
	case xs.t == nil && mu.t != nil && !muOne && sig.t != nil && sigOne:
		x := spread(xs.f)
		return func(vals, dp []float64) float64 {
			vals, dp = vals[:n+1], dp[:n+1]
			x := x[:n]
			s := vals[n]
			if !(s > 0) || math.IsInf(s, 1) {
				return math.NaN()
			}
			ls := math.Log(s)
			total, dS := 0.0, 0.0
			for i, m := range vals[:n] {
				if math.IsNaN(m) || math.IsInf(m, 0) {
					return math.NaN()
				}
				z := (x[i] - m) / s
				lp := -0.5*z*z - ls - logSqrt2Pi
				if math.IsInf(lp, -1) || math.IsNaN(lp) {
					return math.NaN()
				}
				total += lp
				zs, ws := z/s, (z*z-1)/s
				dp[i] = zs
				dS += ws
			}
			dp[n] = dS
			return total
		}
	}
	return nil
}
