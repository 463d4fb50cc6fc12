package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestDtrsmOneRHS: DTRSM with one right-hand side (a column of B, side
// Left, or a row, side Right) goes to DTRSV; it must agree with gonum's
// Dtrsm for every side, triangle, transpose and diagonal, with B's column
// strided (ldb > 1) and not, on orders past minTrsv (where Dtrsv runs on
// row dots and axpys), and set B to zero for α = 0 even over a NaN.
func TestDtrsmOneRHS(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for it := range 64 {
		k := []int{1, 5, 63, 64, 65, 200, 301}[r.IntN(7)]
		s := []blas.Side{blas.Left, blas.Right}[it%2]
		ul := []blas.Uplo{blas.Upper, blas.Lower}[it/2%2]
		tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/4%2]
		d := []blas.Diag{blas.NonUnit, blas.Unit}[it/8%2]
		alpha := []float64{1, -1, 0, 0.7}[it/16%4]
		m, n := k, 1
		if s == blas.Right {
			m, n = 1, k
		}
		lda, ldb := k+r.IntN(3), n+r.IntN(3)
		a := triangular(r, k, lda, ul == blas.Upper, d == blas.Unit)
		b := randSlice(r, (m-1)*ldb+n)
		if alpha == 0 {
			b[r.IntN(len(b))] = math.NaN()
		}
		want := append([]float64(nil), b...)
		ref.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, want, ldb)
		got := append([]float64(nil), b...)
		Implementation{}.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, got, ldb)
		// Substitution in another order of the sums: as TestDtrsm.
		check(t, fmt.Sprintf("Dtrsm(%c,%c,%c,%c,m=%d,n=%d,α=%g,ld=%d,%d)", s, ul, tA, d, m, n, alpha, lda, ldb), got, want, 8*float64(k+2)*eps*4)
	}
}
