package gp

import (
	"math"
	"testing"
)

// TestTiltedLogit: the logistic's tilted integrals by the carried products
// of tiltedLogit equal the node-by-node Simpson sum on the same rule
// (tiltedSimpson, log σ at every node) to 10⁻¹² relative (the variance relative to the second moment about
// the cavity's mean, from which it is computed), over cavities
// from far on the wrong side of the label to far on the right one and
// from very narrow to very wide (variance 10⁻⁴ to 4·10⁶, EP's cavities at
// the example's ML-II optimum of a = 10⁸).
func TestTiltedLogit(t *testing.T) {
	l := Lik{Kind: Logit}
	worst := 0.0
	for _, y := range []float64{-1, 1} {
		for _, m := range []float64{-3000, -50, -5, -0.3, 0, 2, 40, 700} {
			for _, v := range []float64{1e-4, 0.01, 1, 7, 60, 1e4, 4e6} {
				rule := l.tiltedRule(y, m, v)
				z0, m0, v0 := l.tiltedSimpson(nil, &rule, y, m, v)
				z1, m1, v1 := tiltedLogit(&rule, y, m, v)
				ez := math.Abs(z1-z0) / (1 + math.Abs(z0))
				em := math.Abs(m1-m0) / (math.Sqrt(v0) + math.Abs(m0))
				// The variance is s₂/Z − (s₁/Z)², whose rounding is relative to
				// the second moment about m.
				ev := math.Abs(v1-v0) / (v0 + (m0-m)*(m0-m))
				e := math.Max(ez, math.Max(em, ev))
				worst = math.Max(worst, e)
				if !(e <= 1e-12) {
					t.Errorf("y %g, cavity N(%g, %g): log Z %.15g / %.15g, mean %.15g / %.15g, variance %.15g / %.15g", y, m, v, z1, z0, m1, m0, v1, v0)
				}
			}
		}
	}
	t.Logf("largest relative difference %.2e", worst)
}
