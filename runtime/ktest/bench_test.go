package ktest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The permutation tests at n = 500, 2000 and 5000 rows per sample, D = 10,
// 500 permutations (the comparison with bench/ktest_numpy.py):
//
//	go test ./runtime/ktest -run '^$' -bench PermutationTest -benchtime 1x -benchmem
//
// Besides wall time and allocation per run, cpu-s/op is the process's CPU
// time (user + system, all threads) per run, and peak-MB the largest heap
// in use sampled while the test runs (through runtime/metrics, which does
// not stop the world, so the sampler does not slow the test on a loaded
// machine).
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
			b.ReportMetric(peak.mb, "peak-MB")
			b.ReportMetric(peak.cpu, "cpu-s/op")
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
			b.ReportMetric(peak.mb, "peak-MB")
			b.ReportMetric(peak.cpu, "cpu-s/op")
		})
	}
}

// heapRun is what peakHeap measured: the largest heap in use (MB) and the
// CPU seconds per run.
type heapRun struct{ mb, cpu float64 }

// peakHeap runs f b.N times and returns the largest heap in use (the
// runtime's HeapInuse: heap objects and the unused part of their spans)
// seen by a sampler every few milliseconds, and the process's CPU time
// per run.
func peakHeap(b *testing.B, f func()) heapRun {
	runtime.GC()
	done := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var peak uint64
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64()+sample[1].Value.Uint64())
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
	cpu0 := cputime.Used()
	for i := 0; i < b.N; i++ {
		f()
	}
	cpu := cputime.Used() - cpu0
	b.StopTimer()
	close(done)
	return heapRun{float64(<-res) / 1e6, cpu.Seconds() / float64(b.N)}
}
