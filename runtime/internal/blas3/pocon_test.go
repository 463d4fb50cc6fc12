package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// TestDpoconExact: Lapack's Dpocon against gonum's Dpocon to relative 1e-9
// (the same Dlacn2 steps, sums in another order) at orders 513 and 700, and
// against the exact reciprocal condition number 1/(‖A‖₁‖A⁻¹‖₁) on small
// matrices, A⁻¹ from gonum's Dpotri: LAPACK's
// estimate of ‖A⁻¹‖₁ is ‖A⁻¹x‖₁ for some ‖x‖₁ = 1, a lower bound, so the
// estimate of the reciprocal may not be below the exact one (beyond
// rounding, relative 1e-12), and for these random matrices it is within a
// factor 3 of it, with the solves by rows and by blocks (trsvBlocked) (Higham, Accuracy and Stability, §15.3).
func TestDpoconExact(t *testing.T) {
	defer func(m int) { minTrsvPar = m }(minTrsvPar)
	refL := gonumlapack.Implementation{}
	r := rand.New(rand.NewPCG(53, 54))
	factor := func(ul blas.Uplo, n int, ridge float64) (a []float64, anorm float64) {
		x := randSlice(r, n*n)
		a = make([]float64, n*n)
		Implementation{}.Dgemm(blas.NoTrans, blas.Trans, n, n, n, 1, x, n, x, n, 0, a, n)
		for i := range n {
			for j := range i { // exactly symmetric
				a[i*n+j] = a[j*n+i]
			}
			a[i*n+i] += ridge
		}
		anorm = refL.Dlansy(lapack.MaxColumnSum, ul, n, a, n, make([]float64, n))
		if !refL.Dpotrf(ul, n, a, n) {
			t.Fatalf("n=%d: not positive definite", n)
		}
		return a, anorm
	}
	for _, n := range []int{513, 700} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, ridge := range []float64{float64(n), 1e-3} {
				a, anorm := factor(ul, n, ridge)
				work, iwork := make([]float64, 3*n), make([]int, n)
				want := refL.Dpocon(ul, n, a, n, anorm, work, iwork)
				got := Lapack{}.Dpocon(ul, n, a, n, anorm, work, iwork)
				if !(math.Abs(got-want) <= 1e-9*want) {
					t.Errorf("Dpocon(%c, n=%d, ridge=%g) = %g, want gonum's %g", ul, n, ridge, got, want)
				}
			}
		}
	}
	for _, n := range []int{2, 7, 40, 129, 200} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, ridge := range []float64{float64(n), 1e-2} {
				a, anorm := factor(ul, n, ridge)
				inv := slices.Clone(a)
				if !refL.Dpotri(ul, n, inv, n) {
					t.Fatal("singular factor")
				}
				colSum := make([]float64, n)
				for i := range n {
					for j := range n {
						v := inv[i*n+j] // the full symmetric A⁻¹ from its triangle
						if (j < i) == (ul == blas.Upper) && i != j {
							v = inv[j*n+i]
						}
						colSum[j] += math.Abs(v)
					}
				}
				exact := 1 / (anorm * slices.Max(colSum))
				for _, par := range []int{1 << 30, 0} { // solves by rows, by blocks
					minTrsvPar = par
					got := Lapack{}.Dpocon(ul, n, a, n, anorm, make([]float64, 3*n), make([]int, n))
					what := fmt.Sprintf("Dpocon(%c, n=%d, ridge=%g, minTrsvPar=%d)", ul, n, ridge, par)
					if !(got >= exact*(1-1e-12)) || !(got <= 3*exact) {
						t.Errorf("%s = %g, exact reciprocal condition %g", what, got, exact)
					}
				}
			}
		}
	}
}
