package loo_test

import (
	"math"
	"syscall"
	"testing"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// cpuTime is the process's user and system CPU time in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

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
	before := cpuTime()
	for range b.N {
		if _, err := in.Eval("bench.kml", "let l = loo(post)"); err != nil {
			b.Fatal(err)
		}
	}
	// On a crowded machine the wall time says little: the CPU time per
	// loo divided by the cores is the wall time the machine would give
	// alone.
	b.ReportMetric((cpuTime()-before)/float64(b.N), "cpu-s/op")
}
