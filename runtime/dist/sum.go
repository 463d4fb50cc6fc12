package dist

import "math"

// SumGrader is a family that sums its log density over many points with the
// same parameters faster than point by point, computing what the points
// share (log σ, log wₖ) once.
type SumGrader interface {
	// LogProbGradSum returns Σᵢ log p(xs[i] | p), writes Σᵢ ∂/∂p into dp
	// and, when dx is not nil, ∂/∂xs[i] into dx[i]. The sum is −Inf or NaN
	// where a term is: the caller then looks for the point to report.
	LogProbGradSum(dp, dx, xs, p []float64) float64
}

var _ SumGrader = (*mixture)(nil)

// LogProbGradSum takes each component's log density once per point (the
// point-by-point LogProbGrad takes it twice) and the log weights and normal
// components' log σ once for all points. With rₖ = wₖpₖ(x)/p(x) from the
// log-sum-exp's own exponentials, ∂/∂wₖ = rₖ/wₖ (pₖ(x)/p(x) itself where
// wₖ = 0) and a component's parameters and x take rₖ times its derivatives.
func (m *mixture) LogProbGradSum(dp, dx, xs, p []float64) float64 {
	k := len(m.comps)
	clear(dp)
	var buf [6 * 8]float64 // keeps small mixtures off the heap
	s := buf[:]
	if 6*k > len(buf) {
		s = make([]float64, 6*k)
	}
	logw, logS, clps, lps, e, cdx := s[:k], s[k:2*k], s[2*k:3*k], s[3*k:4*k], s[4*k:5*k], s[5*k:6*k]
	g := make([]float64, len(p)) // the components' derivatives at one point
	isNormal := make([]bool, k)
	for i, c := range m.comps {
		logw[i] = math.Log(p[i])
		if _, ok := c.(normal); ok {
			isNormal[i] = true
			logS[i] = math.Log(m.part(p, i)[1])
		}
	}
	total := 0.0
	for j, x := range xs {
		best, top := -inf, -1
		for i, c := range m.comps {
			part := m.part(p, i)
			gi := g[m.offset[i] : m.offset[i]+len(part)]
			var clp float64
			if isNormal[i] {
				sd := part[1]
				z := (x - part[0]) / sd
				gi[0], gi[1] = z/sd, (z*z-1)/sd
				clp, cdx[i] = -0.5*z*z-logS[i]-logSqrt2Pi, -z/sd
			} else {
				clp, cdx[i] = c.LogProbGrad(gi, x, part)
			}
			clps[i], lps[i] = clp, logw[i]+clp
			if lps[i] > best {
				best, top = lps[i], i
			} else if math.IsNaN(lps[i]) {
				return lps[i]
			}
		}
		if top < 0 {
			return best // −Inf
		}
		sum := 0.0
		for i := range e {
			e[i] = 1 // exp(0) for the largest term
			if i != top {
				e[i] = math.Exp(lps[i] - best)
			}
			sum += e[i]
		}
		lp := best + math.Log(sum)
		total += lp
		d := 0.0
		for i := range m.comps {
			r := e[i] / sum
			if p[i] > 0 {
				dp[i] += r / p[i]
			} else {
				dp[i] += math.Exp(clps[i] - lp)
			}
			lo := m.offset[i]
			for q, gq := range g[lo : lo+len(m.comps[i].ParamNames())] {
				dp[lo+q] += r * gq
			}
			d += r * cdx[i]
		}
		if dx != nil {
			dx[j] = d
		}
	}
	return total
}
