package blas3

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/cputime"
)

// The triangular solves of issue 30's comparison with SciPy
// (bench/blas_numpy.py does the same ones): DTRSM with A the n×n upper
// Cholesky factor of an SPD matrix, side Left, op(A) = A and Aᵀ, for n
// right-hand sides (n³ flops) and for one (n² flops), and
// mat.Cholesky.SolveTo with n right-hand sides (two such solves, 2n³
// flops). B is copied back in every iteration (as SciPy copies it when it
// does not overwrite), so every solve starts from the same numbers; the
// copy is n² of the n³ (n² of the n² for one right-hand side, as in
// SciPy).
func BenchmarkTrsm(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		var ch mat.Cholesky
		if !ch.Factorize(spd(n, 3)) {
			b.Fatal("not positive definite")
		}
		var u mat.TriDense
		ch.UTo(&u)
		a := u.RawTriangular().Data
		r := rand.New(rand.NewPCG(uint64(n), 21))
		for _, nrhs := range []int{n, 1} {
			src := randSlice(r, n*nrhs)
			x := make([]float64, n*nrhs)
			for _, tA := range []blas.Transpose{blas.NoTrans, blas.Trans} {
				name := fmt.Sprintf("n=%d/rhs=%d/%c", n, nrhs, tA)
				if nrhs == n {
					name = fmt.Sprintf("n=%d/rhs=n/%c", n, tA)
				}
				b.Run(name, func(b *testing.B) {
					impl := blas64.Implementation()
					cpu0 := cputime.Used()
					for b.Loop() {
						copy(x, src)
						impl.Dtrsm(blas.Left, blas.Upper, tA, blas.NonUnit, n, nrhs, 1, a, n, x, nrhs)
					}
					report(b, float64(n)*float64(n)*float64(nrhs), cpu0)
				})
			}
		}
	}
}

// BenchmarkCholSolve is mat.Cholesky.SolveTo with n right-hand sides
// (LAPACK's Dpotrs: UᵀY = B, then UX = Y), 2n³ flops.
func BenchmarkCholSolve(b *testing.B) {
	for _, n := range []int{1000, 2000, 4000} {
		var ch mat.Cholesky
		if !ch.Factorize(spd(n, 3)) {
			b.Fatal("not positive definite")
		}
		r := rand.New(rand.NewPCG(uint64(n), 22))
		rhs := mat.NewDense(n, n, randSlice(r, n*n))
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var x mat.Dense
			cpu0 := cputime.Used()
			for b.Loop() {
				if err := ch.SolveTo(&x, rhs); err != nil {
					b.Fatal(err)
				}
			}
			report(b, 2*float64(n)*float64(n)*float64(n), cpu0)
		})
	}
}
