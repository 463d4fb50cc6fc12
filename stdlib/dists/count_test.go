package dists_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestCountPosteriors samples two conjugate count models and compares the
// posterior mean and sd with the closed forms: gamma(2, 1) prior with
// Poisson counts gives gamma(2 + Σy, 1 + n); beta(2, 3) with binomial
// counts gives beta(2 + Σy, 3 + Σ(n − y)). Within 4 Monte Carlo standard
// errors.
func TestCountPosteriors(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [3, 5, 2, 6, 4, 1, 4]
model pm {
  lambda ~ gamma(2, 1)
  y ~ poisson(lambda)
}
let k = [3, 7, 1, 9]
let trials = [10, 12, 5, 15]
model bm {
  p ~ beta(2, 3)
  k ~ binomial(trials, p)
}
let lp = sample(pm, chains: 4, warmup: 500, draws: 1000, seed: 21)
let bp = sample(bm, chains: 4, warmup: 500, draws: 1000, seed: 22)
let ls = summary(lp)
let bs = summary(bp)
`)
	check := func(name string, s *infer.SummaryVal, mean, sd float64) {
		t.Helper()
		p := s.S.Params[0]
		// The sd's standard error, sd/√(2 ESS), as for a near-normal posterior.
		sdSE := p.SD / math.Sqrt(2*p.ESSBulk)
		if math.Abs(p.Mean-mean) > 4*p.MCSEMean || math.Abs(p.SD-sd) > 4*sdSE {
			t.Errorf("%s: mean %v ± %v (want %v), sd %v ± %v (want %v)", name, p.Mean, p.MCSEMean, mean, p.SD, sdSE, sd)
		}
	}
	// gamma(27, 8): mean 27/8, sd √27/8.
	check("poisson", kmltest.Lookup[*infer.SummaryVal](t, in, "ls"), 27.0/8, math.Sqrt(27)/8)
	// beta(22, 25): mean 22/47, sd √(22·25/(47²·48)).
	check("binomial", kmltest.Lookup[*infer.SummaryVal](t, in, "bs"), 22.0/47, math.Sqrt(22*25/(47*47*48.0)))
}
