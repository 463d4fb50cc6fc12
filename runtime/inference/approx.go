package inference

import (
	"math"

	"github.com/kml-lang/kml/runtime/rng"
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

// Streams of the approximations' draws, beside those of runtime/rng.
const (
	// laplaceStream draws Laplace's Gaussian.
	laplaceStream rng.Stream = 0x6c706c63 // "lplc"
	// pathfinderFitPath is a Pathfinder fit's path p (indexed by path).
	pathfinderFitPath rng.Stream = 0x70667061 // "pfpa"
	// pathfinderFitResample resamples the pooled draws of a Pathfinder fit.
	pathfinderFitResample rng.Stream = 0x70667273 // "pfrs"
)

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
