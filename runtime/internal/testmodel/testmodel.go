package testmodel

import "math"

// StdNormal is a D-dimensional standard normal.
type StdNormal struct{ D int }

// Dim returns D.
func (m StdNormal) Dim() int { return m.D }

// LogDensity returns −½|q|² and writes −q into grad.
func (m StdNormal) LogDensity(grad, q []float64) (float64, error) {
	lp := 0.0
	for i, x := range q {
		lp -= 0.5 * x * x
		grad[i] = -x
	}
	return lp, nil
}

// Mixture1 is a one-dimensional mixture of normals, log Σ_k W_k N(x; Mu_k, Sd_k).
type Mixture1 struct {
	W, Mu, Sd []float64
}

// Dim returns 1.
func (m Mixture1) Dim() int { return 1 }

// LogDensity returns the log density and its derivative, computed stably
// relative to the largest component.
func (m Mixture1) LogDensity(grad, q []float64) (float64, error) {
	x := q[0]
	best := math.Inf(-1)
	lps := make([]float64, len(m.W))
	for k := range m.W {
		z := (x - m.Mu[k]) / m.Sd[k]
		lps[k] = math.Log(m.W[k]) - math.Log(m.Sd[k]) - 0.5*z*z
		best = math.Max(best, lps[k])
	}
	sum, dsum := 0.0, 0.0
	for k := range m.W {
		e := math.Exp(lps[k] - best)
		sum += e
		dsum += e * (-(x - m.Mu[k]) / (m.Sd[k] * m.Sd[k]))
	}
	grad[0] = dsum / sum
	return best + math.Log(sum), nil
}
