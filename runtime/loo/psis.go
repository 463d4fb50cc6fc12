package loo

import (
	"cmp"
	"math"
	"slices"
)

// MinTail is the fewest tail draws a generalized Pareto distribution is fitted
// to; with fewer, k̂ is +Inf and the weights are only truncated (R's loo).
const MinTail = 5

// TailLength is the number of largest importance ratios smoothed out of S
// draws whose relative efficiency is reff: M = ⌈min(S/5, 3√(S/reff))⌉
// (Vehtari et al. 2024, §3; R's n_pareto).
func TailLength(S int, reff float64) int {
	return int(math.Ceil(math.Min(0.2*float64(S), 3*math.Sqrt(float64(S)/reff))))
}

// KThreshold is the largest k̂ for which PSIS is reliable with S draws:
// min(1 − 1/log10(S), 0.7) (Vehtari et al. 2024, §3.2.4; R's loo from 2.7
// on; loo 2.5 used 0.7 for every S).
func KThreshold(S int) float64 {
	return math.Min(1-1/math.Log10(float64(S)), 0.7)
}

// scratch is one goroutine's working memory for smoothing.
type scratch struct {
	idx  []int
	x    []float64
	in   []bool
	keys []sortKey
	lpd  float64 // normaliser's log Σ exp(ll)
}

// Smooth Pareto-smooths one observation's log importance ratios (for LOO,
// the negated log likelihood at each draw): the tail largest ratios are
// replaced by the expected order statistics of a generalized Pareto
// distribution fitted to them, and every ratio is truncated at the largest
// raw ratio. It returns the smoothed, unnormalised log weights, in the
// draws' order, and the fitted shape k̂ (+Inf when no tail could be
// fitted). This is R's loo:::do_psis_i; lw may be logRatios itself.
func Smooth(lw, logRatios []float64, tail int) (k float64) {
	k, _ = smooth(lw, logRatios, tail, &scratch{})
	return k
}

// smooth is Smooth, returning also the indices of the draws whose weight it
// replaced (nil when none): every other lw[s] is logRatios[s].
func smooth(lw, logRatios []float64, tail int, sc *scratch) (k float64, top []int) {
	mx := math.Inf(-1)
	for _, x := range logRatios {
		if x > mx {
			mx = x
		}
	}
	copy(lw, logRatios)
	return smoothMax(lw, mx, tail, sc)
}

// smoothMax is smooth in place, given mx, the largest of lw.
func smoothMax(lw []float64, mx float64, tail int, sc *scratch) (k float64, top []int) {
	k = math.Inf(1)
	if tail >= MinTail && tail < len(lw) {
		k, top = smoothTail(lw, mx, tail, sc)
	}
	for _, s := range top {
		// Truncation at the largest raw ratio only reaches smoothed values.
		lw[s] = math.Min(lw[s]-mx, 0) + mx
	}
	return k, top
}

// smoothTail replaces the tail largest of lw (whose maximum is mx) by the
// generalized Pareto quantiles fitted to them above the next value down,
// working on lw − mx as R does.
func smoothTail(lw []float64, mx float64, tail int, sc *scratch) (float64, []int) {
	S := len(lw)
	if cap(sc.idx) < S {
		sc.idx = make([]int, S)
	}
	idx := sc.idx[:S]
	for i := range idx {
		idx[i] = i
	}
	// The tail is the largest values: select them, then sort only them.
	selectLargest(idx, lw, tail)
	top := idx[S-tail:]
	sortStable(top, lw, sc)
	cutoff := math.Inf(-1)
	for _, i := range idx[:S-tail] {
		if lw[i] > cutoff {
			cutoff = lw[i]
		}
	}
	cutoff -= mx
	lo, hi := lw[top[0]]-mx, lw[top[tail-1]]-mx
	if math.Abs(hi-lo) < 0x1p-52/100 {
		// Every tail value is the same: no distribution can be fitted.
		return math.Inf(1), nil
	}
	expCut := math.Exp(cutoff)
	if cap(sc.x) < tail {
		sc.x = make([]float64, tail)
	}
	x := sc.x[:tail]
	for j, i := range top {
		x[j] = math.Exp(lw[i]-mx) - expCut
	}
	k, sigma := GPDFit(x)
	if math.IsInf(k, 0) || math.IsNaN(k) {
		return math.Inf(1), nil
	}
	for j, i := range top {
		p := (float64(j) + 0.5) / float64(tail)
		lw[i] = math.Log(gpdQuantile(p, k, sigma)+expCut) + mx
	}
	return k, top
}

// sortKey is a tail draw's value, its place in the tail as selected, and
// its index.
type sortKey struct {
	v      float64
	pos, i int
}

// sortStable sorts the indices top by their values in lw, ties kept in
// their order in top: slices.SortStableFunc's result, by a pattern-
// defeating quicksort of (value, place) pairs, which is several times
// faster on a tail of a few hundred (the values are finite).
func sortStable(top []int, lw []float64, sc *scratch) {
	if cap(sc.keys) < len(top) {
		sc.keys = make([]sortKey, len(top))
	}
	keys := sc.keys[:len(top)]
	for j, i := range top {
		keys[j] = sortKey{lw[i], j, i}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if c := cmp.Compare(a.v, b.v); c != 0 {
			return c
		}
		return a.pos - b.pos
	})
	for j, k := range keys {
		top[j] = k.i
	}
}

// selectLargest permutes idx so that its last m entries index the m largest
// values of v (in no order), by quickselect: O(S) where a sort is O(S log S).
func selectLargest(idx []int, v []float64, m int) {
	lo, hi, target := 0, len(idx)-1, len(idx)-m
	for lo < hi {
		p := v[idx[(lo+hi)/2]]
		i, j := lo, hi
		for i <= j {
			for v[idx[i]] < p {
				i++
			}
			for v[idx[j]] > p {
				j--
			}
			if i <= j {
				idx[i], idx[j] = idx[j], idx[i]
				i++
				j--
			}
		}
		switch {
		case target <= j:
			hi = j
		case target >= i:
			lo = i
		default:
			return
		}
	}
}

// GPDFit fits a generalized Pareto distribution to the exceedances x
// (positive, sorted ascending) by the profile-posterior mean of Zhang and
// Stephens (2009), with the weakly informative prior pulling k̂ towards 0.5
// of Vehtari et al. (2024, appendix; R's loo::gpdfit with wip = TRUE,
// min_grid_pts = 30). It returns the shape k and the scale sigma.
func GPDFit(x []float64) (k, sigma float64) {
	n := len(x)
	const prior = 3.0
	m := 30 + int(math.Floor(math.Sqrt(float64(n))))
	xstar := x[int(math.Floor(float64(n)/4+0.5))-1] // first quartile
	var thetaBuf, lBuf [128]float64
	theta, lTheta := thetaBuf[:0], lBuf[:0]
	for j := range m {
		th := 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/prior/xstar
		// Profile log likelihood n·(log(−θ/k) − k − 1), k = mean log1p(−θx).
		kk := meanLog1pProd(-th, x)
		theta = append(theta, th)
		lTheta = append(lTheta, float64(n)*(math.Log(-th/kk)-kk-1))
	}
	lse := logSumExp(lTheta)
	thetaHat := 0.0
	for j, t := range theta {
		thetaHat += t * math.Exp(lTheta[j]-lse)
	}
	k = meanLog1p(-thetaHat, x)
	sigma = -k / thetaHat
	// The weakly informative prior: k shrunk towards 0.5 as by 10 draws.
	const a = 10.0
	k = k*float64(n)/(float64(n)+a) + a*0.5/(float64(n)+a)
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}

// meanLog1p is the mean of log(1 + a·x). math.Log(1+y) is used where it is
// as accurate as math.Log1p (|y| ≥ 1e-4: the rounding of 1 + y costs at
// most 1e-12 relative), being several times faster.
func meanLog1p(a float64, x []float64) float64 {
	s := 0.0
	for _, xi := range x {
		y := a * xi
		if y < 1e-4 && y > -1e-4 {
			s += math.Log1p(y)
		} else {
			s += math.Log(1 + y)
		}
	}
	return s / float64(len(x))
}

// meanLog1pProd is meanLog1p as the log of a product, renormalised by its
// binary exponent every 8 factors: one logarithm per call in place of one
// per element (the grid of GPDFit evaluates it 30 + √M times per
// observation). The product's rounding, about M·2⁻⁵³ relative, moves the
// mean by less than 1e-14.
func meanLog1pProd(a float64, x []float64) float64 {
	p, e := 1.0, 0
	for i, xi := range x {
		p *= 1 + a*xi
		if i%8 == 7 {
			var ex int
			p, ex = math.Frexp(p)
			e += ex
		}
	}
	if !(p > 0) || math.IsInf(p, 0) {
		return meanLog1p(a, x) // a factor ≤ 0 or beyond the range: term by term
	}
	return (math.Log(p) + float64(e)*math.Ln2) / float64(len(x))
}

// gpdQuantile is the p quantile of the generalized Pareto distribution with
// shape k and scale sigma (location 0).
func gpdQuantile(p, k, sigma float64) float64 {
	if math.IsNaN(sigma) || sigma <= 0 {
		return math.NaN()
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// logSumExp is log Σ exp(x), computed without overflow.
func logSumExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		if v > mx {
			mx = v
		}
	}
	return logSumExpShift(x, mx)
}

// logSumExpShift is log Σ exp(x) given mx ≥ max x (finite unless every x
// is −Inf).
func logSumExpShift(x []float64, mx float64) float64 {
	if math.IsInf(mx, 0) {
		return mx
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - mx)
	}
	return mx + math.Log(s)
}
