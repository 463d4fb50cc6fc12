package inference

import (
	"math"
)

// Approx is a Gaussian approximation's draws on the unconstrained scale,
// what pathfinder and laplace return: each draw with its log density
// log p(θ) (the model's, with the Jacobian) and the approximation's
// log q(θ), and the Pareto k̂ of the importance ratios p/q over the draws
// the approximation made (Vehtari et al. 2024): below 0.7 the approximation
// is reliable enough for importance sampling to correct it.
type Approx struct {
	Draws      [][]float64
	LogP, LogQ []float64
	// Khat is the Pareto k̂ of log p − log q over the approximation's
	// draws (before any resampling).
	Khat float64
	// Evals counts log density evaluations.
	Evals int64
	// PathELBO and PathIters are, per Pathfinder path, the best ELBO
	// estimate and the L-BFGS iterations run (nil for Laplace).
	PathELBO  []float64
	PathIters []int
}

// khatOf is the Pareto k̂ of the ratios exp(logP − logQ).
func khatOf(logP, logQ []float64) float64 {
	lw := make([]float64, len(logP))
	for i := range lw {
		lw[i] = logP[i] - logQ[i]
		if math.IsNaN(lw[i]) {
			lw[i] = math.Inf(-1)
		}
	}
	_, k := PSIS(lw)
	return k
}
