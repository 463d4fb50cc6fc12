package blas3

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The benchmarks report GFLOP/s: 2n³ for DGEMM, n³/3 for Cholesky. Each
// runs under every vector level, and "gonum" is gonum's own BLAS. On a
// shared machine the wall-clock rate depends on the load, so they also
// report GFLOP per second of processor time (all threads): the rate of one
// core that is not shared.

// report adds the GFLOP/s and GFLOP/cpu-s metrics for flops per op.
func report(b *testing.B, flops float64, cpu0 time.Duration) {
	total := flops * float64(b.N) / 1e9
	b.ReportMetric(total/b.Elapsed().Seconds(), "GFLOP/s")
	if cpu := cputime.Used() - cpu0; cpu > 0 {
		b.ReportMetric(total/cpu.Seconds(), "GFLOP/cpu-s")
	}
}

func BenchmarkDgemm(b *testing.B) {
	for _, n := range []int{256, 512, 1024, 2000} {
		r := rand.New(rand.NewPCG(1, 1))
		x, y, z := randSlice(r, n*n), randSlice(r, n*n), make([]float64, n*n)
		run := func(b *testing.B, impl blas.Float64) {
			cpu0 := cputime.Used()
			for b.Loop() {
				impl.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, x, n, y, n, 0, z, n)
			}
			report(b, 2*float64(n)*float64(n)*float64(n), cpu0)
		}
		for _, l := range cpufeat.Levels() {
			b.Run(fmt.Sprintf("n=%d/%v", n, l), func(b *testing.B) {
				defer cpufeat.Use(l)()
				run(b, Implementation{})
			})
		}
		if n <= 1024 {
			b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) { run(b, ref) })
		}
	}
}

func BenchmarkCholesky(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		a := spd(n, 3)
		run := func(b *testing.B) {
			var ch mat.Cholesky
			cpu0 := cputime.Used()
			for b.Loop() {
				if !ch.Factorize(a) {
					b.Fatal("not positive definite")
				}
			}
			report(b, float64(n)*float64(n)*float64(n)/3, cpu0)
		}
		for _, l := range cpufeat.Levels() {
			b.Run(fmt.Sprintf("n=%d/%v", n, l), func(b *testing.B) {
				defer cpufeat.Use(l)()
				run(b)
			})
		}
		if n <= 2000 {
			b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
				useGonum()
				defer useKML()
				run(b)
			})
		}
	}
}

// useGonum makes gonum's BLAS and LAPACK the implementations, as before
// this package; useKML restores this package's.
func useGonum() {
	blas64.Use(ref)
	lapack64.Use(gonumlapack.Implementation{})
}

func useKML() {
	blas64.Use(Implementation{})
	lapack64.Use(Lapack{})
}

// BenchmarkPotrf is LAPACK's Dpotrf alone (gonum's blocked code, on this
// BLAS), which is what scipy.linalg.cholesky runs: mat.Cholesky.Factorize
// adds a copy and a condition-number estimate (Dpocon), which is level 2.
// n = 207 is the B = I + W^½KW^½ of every Newton step of Laplace's
// approximation on examples/gp_classify.kml's data (issue 39).
func BenchmarkPotrf(b *testing.B) {
	for _, n := range []int{207, 500, 1000, 2000, 4000} {
		a := spd(n, 3)
		src := blas64.General{Rows: n, Cols: n, Stride: n, Data: a.RawSymmetric().Data}
		work := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: make([]float64, n*n)}
		for _, l := range cpufeat.Levels() {
			b.Run(fmt.Sprintf("n=%d/%v", n, l), func(b *testing.B) {
				defer cpufeat.Use(l)()
				cpu0 := cputime.Used()
				for b.Loop() {
					copy(work.Data, src.Data)
					if _, ok := lapack64.Potrf(work); !ok {
						b.Fatal("not positive definite")
					}
				}
				report(b, float64(n)*float64(n)*float64(n)/3, cpu0)
			})
		}
	}
}

// BenchmarkInverse is mat.Cholesky.InverseTo, A⁻¹ from the factor: LAPACK's
// Dpotri (Dtrtri, then Dlauum, both recursive here), 2n³/3 flops, mostly
// in Dtrmm and Dsyrk.
func BenchmarkInverse(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		var ch mat.Cholesky
		if !ch.Factorize(spd(n, 3)) {
			b.Fatal("not positive definite")
		}
		run := func(b *testing.B) {
			var inv mat.SymDense
			cpu0 := cputime.Used()
			for b.Loop() {
				if err := ch.InverseTo(&inv); err != nil {
					b.Fatal(err)
				}
			}
			report(b, 2*float64(n)*float64(n)*float64(n)/3, cpu0)
		}
		for _, l := range cpufeat.Levels() {
			b.Run(fmt.Sprintf("n=%d/%v", n, l), func(b *testing.B) {
				defer cpufeat.Use(l)()
				run(b)
			})
		}
		if n <= 2000 {
			b.Run(fmt.Sprintf("n=%d/gonum", n), func(b *testing.B) {
				useGonum()
				defer useKML()
				run(b)
			})
		}
	}
}
