package loo

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/kml-lang/kml/internal/cputime"
)

// BenchmarkLOO is loo on 4,000 draws × 10,000 observations (the issue asks
// for under a second), on every core. On a crowded machine the wall time
// says little; cpu-s/op, the process's CPU time per loo, divided by the
// cores is the wall time the machine would give alone.
func BenchmarkLOO(b *testing.B) {
	r := rand.New(rand.NewPCG(36, 2))
	const S, N = 4000, 10000
	c := -0.5 * math.Log(2*math.Pi)
	ll := make([][]float64, N)
	mu := make([]float64, S)
	for s := range mu {
		mu[s] = r.NormFloat64() * 0.05
	}
	for i := range ll {
		y := r.NormFloat64()
		ll[i] = make([]float64, S)
		for s := range ll[i] {
			z := y - mu[s]
			ll[i][s] = c - 0.5*z*z
		}
	}
	b.ResetTimer()
	before := cputime.Used().Seconds()
	for range b.N {
		if _, err := Compute(context.Background(), ll, 1, runtime.GOMAXPROCS(0), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cputime.Used().Seconds()-before)/float64(b.N), "cpu-s/op")
}
