package inference

import (
	"math"
	"sort"
)

// Pareto-smoothed importance sampling (Vehtari, Simpson, Gelman, Yao and
// Gabry 2024, "Pareto smoothed importance sampling", JMLR) for the
// approximations' reliability diagnostic: the shape k̂ of a generalized
// Pareto distribution fitted to the largest importance ratios. This is a
// small local copy of the fit (as R's loo::gpdfit and loo's psis, which
// psis_test.go checks it against to 1e-9); once runtime/loo exists the two
// are to be merged into one.

// PSIS smooths the log importance ratios logW (not changed) and returns the
// smoothed log weights, unnormalised, and the Pareto k̂ of their tail. The
// tail is the M = ⌈min(S/5, 3√S)⌉ largest ratios; fewer than 5 in the
// tail gives k̂ = +Inf and the raw weights truncated at their maximum, as
// loo does. Ratios equal to within 1e-9 (q is p up to a constant, as
// Laplace's Gaussian on a Gaussian posterior) have a bounded tail: k̂ is
// −Inf, where loo would warn and give +Inf.
func PSIS(logW []float64) ([]float64, float64) {
	s := len(logW)
	top := math.Inf(-1)
	for _, l := range logW {
		top = math.Max(top, l)
	}
	lw := make([]float64, s)
	for i, l := range logW {
		lw[i] = l - top
	}
	khat := math.Inf(1)
	bottom := math.Inf(1)
	for _, l := range lw {
		bottom = math.Min(bottom, l)
	}
	if bottom > -1e-9 {
		return lw, math.Inf(-1) // lw is within 1e-9 of 0 everywhere
	}
	m := int(math.Ceil(math.Min(0.2*float64(s), 3*math.Sqrt(float64(s)))))
	if m >= 5 && m < s && !math.IsInf(top, 0) && !math.IsNaN(top) {
		idx := make([]int, s)
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return lw[idx[a]] < lw[idx[b]] })
		tail := idx[s-m:]
		cutoff := lw[idx[s-m-1]]
		if lw[tail[m-1]]-lw[tail[0]] >= 2.220446049250313e-16/100 && !math.IsInf(cutoff, -1) {
			ec := math.Exp(cutoff)
			x := make([]float64, m)
			for j, i := range tail {
				x[j] = math.Exp(lw[i]) - ec
			}
			k, sigma := GPDFit(x)
			khat = k
			if !math.IsInf(k, 0) && !math.IsNaN(k) {
				for j, i := range tail {
					p := (float64(j) + 0.5) / float64(m)
					lw[i] = math.Log(gpdQuantile(p, k, sigma) + ec)
				}
			}
		}
	}
	for i := range lw {
		if lw[i] > 0 {
			lw[i] = 0
		}
		lw[i] += top
	}
	return lw, khat
}

// gpdQuantile is the generalized Pareto quantile σ(1−p)^(−k)−1)/k.
func gpdQuantile(p, k, sigma float64) float64 {
	if k == 0 {
		return -sigma * math.Log1p(-p)
	}
	return sigma * math.Expm1(-k*math.Log1p(-p)) / k
}

// GPDFit fits a generalized Pareto distribution to the exceedances x
// (sorted ascending, non-negative) by the empirical Bayes method of Zhang
// and Stephens (2009, "A new and efficient estimation method for the
// generalized Pareto distribution", Technometrics), as R's loo::gpdfit:
// the posterior mean of θ = −k/σ over a grid of 30 + ⌊√n⌋ points with the
// profile likelihood, then k = mean log(1 − θx), shrunk toward 0.5 by the
// weakly informative prior (k·n + 5)/(n + 10). It returns k and σ.
func GPDFit(x []float64) (k, sigma float64) {
	n := len(x)
	const prior = 3
	m := 30 + int(math.Floor(math.Sqrt(float64(n))))
	xstar := x[int(math.Floor(float64(n)/4+0.5))-1] // the first quartile
	theta := make([]float64, m)
	lTheta := make([]float64, m)
	top := math.Inf(-1)
	for j := range theta {
		theta[j] = 1/x[n-1] + (1-math.Sqrt(float64(m)/(float64(j+1)-0.5)))/prior/xstar
		a := -theta[j]
		kk := 0.0
		for _, v := range x {
			kk += math.Log1p(a * v)
		}
		kk /= float64(n)
		lTheta[j] = float64(n) * (math.Log(a/kk) - kk - 1)
		if !math.IsNaN(lTheta[j]) {
			top = math.Max(top, lTheta[j])
		}
	}
	sum := 0.0
	for _, l := range lTheta {
		if !math.IsNaN(l) {
			sum += math.Exp(l - top)
		}
	}
	thetaHat := 0.0
	for j, l := range lTheta {
		if !math.IsNaN(l) {
			thetaHat += theta[j] * math.Exp(l-top) / sum
		}
	}
	for _, v := range x {
		k += math.Log1p(-thetaHat * v)
	}
	k /= float64(n)
	sigma = -k / thetaHat
	k = k*float64(n)/(float64(n)+10) + 10*0.5/(float64(n)+10)
	if math.IsNaN(k) {
		k = math.Inf(1)
	}
	return k, sigma
}
