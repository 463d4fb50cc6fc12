package inference

import (
	"math"

	"github.com/kml-lang/kml/runtime/loo"
)

// PSIS smooths the log importance ratios logW (not changed) by runtime/loo's
// Pareto smoothing (Vehtari, Simpson, Gelman, Yao and Gabry 2024, "Pareto
// smoothed importance sampling", JMLR; R's loo psis with r_eff = 1) and
// returns the smoothed log weights, unnormalised, and k̂, the approximations'
// reliability diagnostic. Ratios equal to within 1e-9 (q is p up to a
// constant, as Laplace's Gaussian on a Gaussian posterior) have a bounded
// tail: k̂ is then −Inf, where loo would warn and give +Inf.
func PSIS(logW []float64) ([]float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range logW {
		lo, hi = math.Min(lo, l), math.Max(hi, l)
	}
	lw := make([]float64, len(logW))
	if hi-lo < 1e-9 {
		copy(lw, logW)
		return lw, math.Inf(-1)
	}
	k := loo.Smooth(lw, logW, loo.TailLength(len(logW), 1))
	return lw, k
}
