package loo

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
)

// cpuTime is the process's user and system CPU time in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

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
	before := cpuTime()
	for range b.N {
		if _, err := Compute(context.Background(), ll, 1, runtime.GOMAXPROCS(0), nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-before)/float64(b.N), "cpu-s/op")
}
