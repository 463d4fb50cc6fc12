package loo_test

import (
	"testing"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// BenchmarkLOOModel is loo(post) of a normal model with 10,000
// observations and 4,000 draws: the pointwise log likelihood evaluated
// from the model at every draw, then PSIS (runtime/loo's BenchmarkLOO
// times PSIS alone).
func BenchmarkLOOModel(b *testing.B) {
	in, _ := kmltest.Run(b, `
let y = draw(normal(0, 1), 10000, seed: 1)
model m {
  mu ~ normal(0, 3)
  sigma ~ lognormal(0, 0.5)
  y ~ normal(mu, sigma)
}
let post = sample(m, seed: 1, chains: 4, draws: 1000, warmup: 200)
`)
	b.ResetTimer()
	before := cputime.Used().Seconds()
	for range b.N {
		if _, err := in.Eval("bench.kml", "let l = loo(post)"); err != nil {
			b.Fatal(err)
		}
	}
	// On a crowded machine the wall time says little: the CPU time per
	// loo divided by the cores is the wall time the machine would give
	// alone.
	b.ReportMetric((cputime.Used().Seconds()-before)/float64(b.N), "cpu-s/op")
}
