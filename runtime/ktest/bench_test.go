package ktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/kernels"
)

// The permutation tests at n = 500, 2000 and 5000 rows per sample, D = 10,
// 500 permutations (the comparison with bench/ktest_numpy.py):
//
//	go test ./runtime/ktest -run '^$' -bench PermutationTest -benchtime 1x -benchmem
//
// Besides time and allocation per run, peak-MB is the largest heap in use
// sampled while the test runs.
func BenchmarkMMDPermutationTest(b *testing.B) {
	for _, n := range []int{500, 2000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(81, uint64(n)))
			x, y := randomPoints(rng, n, 10), randomPoints(rng, n, 10)
			k := must(kernels.NewRBF([]float64{4}))
			peak := peakHeap(b, func() {
				if _, err := MMDTest(context.Background(), k, x, y, Settings{Permutations: 500, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(peak, "peak-MB")
		})
	}
}

func BenchmarkHSICPermutationTest(b *testing.B) {
	for _, n := range []int{500, 2000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(83, uint64(n)))
			x, y := randomPoints(rng, n, 10), randomPoints(rng, n, 10)
			k := must(kernels.NewRBF([]float64{4}))
			peak := peakHeap(b, func() {
				if _, err := HSICTest(context.Background(), k, k, x, y, Permutation, Settings{Permutations: 500, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(peak, "peak-MB")
		})
	}
}

// peakHeap runs f b.N times and returns the largest HeapInuse (MB) seen by
// a sampler every few milliseconds.
func peakHeap(b *testing.B, f func()) float64 {
	runtime.GC()
	done := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-done:
				res <- peak
				return
			default:
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.StopTimer()
	close(done)
	return float64(<-res) / 1e6
}
