package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The Gram benchmarks report ns per entry computed and, as sub-benchmark
// "exp", the cost of one math.Exp per entry on the same arguments in the
// same run, the bound the kernel loops aim to stay within 2× of. They fill
// reused matrices (the Into functions); "alloc" adds mapping in fresh ones,
// which for a 5000×5000 matrix costs more than filling it.

var sink float64

func benchExp(b *testing.B, entries int) {
	rng := rand.New(rand.NewPCG(1, 1))
	args := make([]float64, 4096)
	for i := range args {
		args[i] = -5 * rng.Float64()
	}
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		s := 0.0
		for e := 0; e < entries; e++ {
			s += math.Exp(args[e&4095])
		}
		sink = s
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
}

func BenchmarkRBFGram5000D10(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	x := randomPoints(rng, 5000, 10)
	k := must(NewRBF([]float64{3}))
	// A symmetric Gram matrix computes each pair once: n(n+1)/2 entries.
	entries := 5000 * 5001 / 2
	b.Run("exp", func(b *testing.B) { benchExp(b, entries) })
	// workers=N fills a reused matrix (as a model evaluating it at every
	// step does); alloc includes mapping in a fresh 200 MB matrix.
	dst := mat.NewSymDense(5000, nil)
	dk := []*mat.SymDense{mat.NewSymDense(5000, nil)}
	// Map the reused matrices in before timing.
	if err := GramGradInto(dst, dk, k, x, 0); err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := GramInto(dst, k, x, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
		})
	}
	b.Run("alloc/workers=1", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := GramN(k, x, 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
	})
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("grad/workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := GramGradInto(dst, dk, k, x, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
		})
	}
	b.Run("grad/alloc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := GramGrad(k, x); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
	})
}

func BenchmarkRBFCross100000x50D2(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := randomPoints(rng, 100000, 2)
	z := randomPoints(rng, 50, 2)
	k := must(NewRBF([]float64{0.7}))
	entries := 100000 * 50
	b.Run("exp", func(b *testing.B) { benchExp(b, entries) })
	// Reused destinations, mapped in before timing, as for the Gram matrix.
	dst, dk := mat.NewDense(100000, 50, nil), []*mat.Dense{mat.NewDense(100000, 50, nil)}
	if err := CrossGradInto(dst, dk, k, x, z, 0); err != nil {
		b.Fatal(err)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := CrossInto(dst, k, x, z, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
		})
		b.Run(fmt.Sprintf("grad/workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := CrossGradInto(dst, dk, k, x, z, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(entries), "ns/entry")
		})
	}
}

// BenchmarkDistancePaths compares the direct rows (vectorised, package
// sqdist) with the expansion
// ‖x‖² + ‖y‖² − 2xᵀy for the squared distances of a 2000-point Gram
// matrix on one worker, to place expandMinDim.
func BenchmarkDistancePaths(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, d := range []int{1, 2, 4, 8, 16, 32, 64, 128, 256} {
		x := randomPoints(rng, 2000, d)
		for _, path := range []string{"loop", "expand"} {
			b.Run(fmt.Sprintf("D=%d/%s", d, path), func(b *testing.B) {
				out := make([]float64, 2000*2000)
				g := newGrid(x, nil, 1)
				for i := 0; i < b.N; i++ {
					p := g.prepare([]float64{1}, path == "expand")
					g.parallel(func(i0, i1 int) { g.sqDistBlock(p, out, i0, i1) })
				}
			})
		}
	}
}

// BenchmarkMedianHeuristic: 2000 rows in 10 dimensions, about 2·10⁶
// distances, the median by selection.
func BenchmarkMedianHeuristic(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	x := mat.NewDense(2000, 10, nil)
	for i := 0; i < 2000; i++ {
		for j := 0; j < 10; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	for it := 0; it < b.N; it++ {
		m, err := MedianHeuristic(x, 1)
		if err != nil {
			b.Fatal(err)
		}
		sink = m
	}
}
