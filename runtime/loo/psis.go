package loo

import (
	"math"
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
	sel  []float64
	cand []int
	eqs  []int
	e    []float64
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
	top, cutoff := largest(lw, tail, sc)
	cutoff -= mx
	lo, hi := lw[top[0]]-mx, lw[top[tail-1]]-mx
	if math.Abs(hi-lo) < 0x1p-52/100 {
		// Every tail value is the same: no distribution can be fitted.
		return math.Inf(1), nil
	}
	_ = S
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

// largest returns the indices of the m largest values of v in ascending
// order of value, ties in ascending order of index (R's order(), whose
// last m entries loo smooths), and the largest value outside them (−Inf
// when there is none).
//
// A quickselect over all S values costs about ten nanoseconds a value, its
// comparisons being unpredictable branches, and was a quarter of PSIS's
// time. So a threshold is first guessed from every 16th value, set so that
// a few more than m values should pass it; one pass with a branch that is
// rarely taken gathers the values above it, and only those few are
// selected and sorted. When fewer than m pass (an unlucky sample), or S is
// small, every value is selected.
func largest(v []float64, m int, sc *scratch) (top []int, below float64) {
	S := len(v)
	if cap(sc.sel) < S {
		sc.sel, sc.cand = make([]float64, S), make([]int, S)
	}
	const stride = 16
	if S >= 64*stride && m <= S/8 {
		// The sample's k-th largest, k set for 1.5 m expected passes and
		// three standard deviations more.
		ns := S / stride
		sample := sc.sel[:ns]
		for j := range sample {
			sample[j] = v[j*stride]
		}
		want := 1.5 * float64(m) / stride
		k := min(ns-1, int(want+3*math.Sqrt(want))+1)
		t0 := selectNth(sample, ns-k)
		cand := sc.cand[:0]
		lo := math.Inf(-1) // the largest value below t0
		for i, x := range v {
			if x >= t0 {
				cand = append(cand, i)
			} else if x > lo {
				lo = x
			}
		}
		if len(cand) >= m {
			return tailOf(v, cand, m, lo, sc)
		}
	}
	all := sc.cand[:S]
	for i := range all {
		all[i] = i
	}
	return tailOf(v, all, m, math.Inf(-1), sc)
}

// tailOf is largest given cand, the indices (ascending) of every value of
// v at or above some threshold, at least m of them, and lo, the largest
// value below that threshold.
func tailOf(v []float64, cand []int, m int, lo float64, sc *scratch) (top []int, below float64) {
	n := len(cand)
	w := sc.sel[:n]
	for j, i := range cand {
		w[j] = v[i]
	}
	t := selectNth(w, n-m) // the m-th largest value
	ties := m              // how many values equal to t the tail takes
	for _, x := range w[n-m:] {
		if x > t {
			ties--
		}
	}
	if cap(sc.idx) < m {
		sc.idx = make([]int, m)
	}
	top, eqs := sc.idx[:0], sc.eqs[:0]
	below = lo
	for _, i := range cand {
		switch x := v[i]; {
		case x > t:
			top = append(top, i)
		case x == t:
			eqs = append(eqs, i)
		default:
			below = max(below, x)
		}
	}
	// Of the values equal to t, the tail takes the last ones by index (as
	// R's stable order does); any left out are the largest below it.
	top = append(top, eqs[len(eqs)-ties:]...)
	if len(eqs) > ties {
		below = t
	}
	sc.eqs = eqs
	sortTail(top, v, sc)
	return top, below
}

// selectNth permutes w so that w[k] is the value a sort would put there,
// every value before it ≤ w[k] and every value after it ≥ w[k]
// (Hoare's quickselect with a median-of-three pivot), and returns w[k].
func selectNth(w []float64, k int) float64 {
	lo, hi := 0, len(w)-1
	for hi > lo {
		mid := int(uint(lo+hi) >> 1)
		a, b, c := w[lo], w[mid], w[hi]
		p := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi
		for i <= j {
			for w[i] < p {
				i++
			}
			for w[j] > p {
				j--
			}
			if i <= j {
				w[i], w[j] = w[j], w[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return w[k]
		}
	}
	return w[k]
}

// sortKey is a tail draw's value and its index.
type sortKey struct {
	v float64
	i int
}

// less orders keys by value, ties by index.
func (a sortKey) less(b sortKey) bool { return a.v < b.v || a.v == b.v && a.i < b.i }

// sortTail sorts the indices top by their values in v, ties in index
// order: R's order() restricted to the tail. The sort is written out
// (quicksort, median-of-three, insertion sort for short runs) because
// slices.SortFunc's comparison through a function value cost twice as
// much on tails of a few hundred; keys are distinct, and at these sizes
// even quicksort's worst case is small.
func sortTail(top []int, v []float64, sc *scratch) {
	if cap(sc.keys) < len(top) {
		sc.keys = make([]sortKey, len(top))
	}
	keys := sc.keys[:len(top)]
	for j, i := range top {
		keys[j] = sortKey{v[i], i}
	}
	quickSort(keys)
	for j, k := range keys {
		top[j] = k.i
	}
}

func quickSort(a []sortKey) {
	for len(a) > 12 {
		mid := len(a) / 2
		// Median of three to a[0], then partition a[1:] around it.
		if a[mid].less(a[0]) {
			a[mid], a[0] = a[0], a[mid]
		}
		if a[len(a)-1].less(a[0]) {
			a[len(a)-1], a[0] = a[0], a[len(a)-1]
		}
		if a[len(a)-1].less(a[mid]) {
			a[len(a)-1], a[mid] = a[mid], a[len(a)-1]
		}
		a[0], a[mid] = a[mid], a[0]
		p := a[0]
		i, j := 1, len(a)-1
		for {
			for i <= j && a[i].less(p) {
				i++
			}
			for i <= j && p.less(a[j]) {
				j--
			}
			if i >= j {
				break
			}
			a[i], a[j] = a[j], a[i]
			i++
			j--
		}
		a[0], a[j] = a[j], a[0]
		// Recurse into the shorter side, loop on the longer.
		if j < len(a)-1-j {
			quickSort(a[:j])
			a = a[j+1:]
		} else {
			quickSort(a[j+1:])
			a = a[:j]
		}
	}
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j].less(a[j-1]); j-- {
			a[j], a[j-1] = a[j-1], a[j]
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
