package blas3

import (
	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
)

// minTrsv is the order below which Dtrsv uses gonum's code.
var minTrsv = 64

// Dtrsv solves op(A)·x = b for the triangular n×n A, overwriting x; see
// gonum's Dtrsv. With unit stride it runs on gonum's vector kernels (Ddot
// and Daxpy in assembly) by rows of A: gonum's own Dtrsv sums each row in
// a scalar loop whose adds wait on each other, and Lapack.Dpocon, the
// Cholesky condition estimate, is two of these per iteration.
func (impl Implementation) Dtrsv(ul blas.Uplo, tA blas.Transpose, d blas.Diag, n int, a []float64, lda int, x []float64, incX int) {
	interrupt.Check()
	if (ul != blas.Upper && ul != blas.Lower) || !validTrans(tA) || (d != blas.Unit && d != blas.NonUnit) ||
		n < minTrsv || n <= 0 || lda < n || incX != 1 || len(a) < lda*(n-1)+n || len(x) < n {
		impl.Implementation.Dtrsv(ul, tA, d, n, a, lda, x, incX)
		return
	}
	g := impl.Implementation
	nonUnit := d == blas.NonUnit
	if n >= minTrsvPar {
		trsvBlocked(g, ul == blas.Upper, isTrans(tA), nonUnit, n, a, lda, x)
		return
	}
	switch {
	case ul == blas.Upper && !isTrans(tA): // backward, row dots
		for i := n - 1; i >= 0; i-- {
			x[i] -= g.Ddot(n-i-1, a[i*lda+i+1:], 1, x[i+1:], 1)
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
		}
	case ul == blas.Lower && !isTrans(tA): // forward, row dots
		for i := range n {
			x[i] -= g.Ddot(i, a[i*lda:], 1, x, 1)
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
		}
	case ul == blas.Upper: // Uᵀx = b: forward, row axpys
		for i := range n {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			if i+1 < n {
				g.Daxpy(n-i-1, -x[i], a[i*lda+i+1:], 1, x[i+1:], 1)
			}
		}
	default: // Lᵀx = b: backward, row axpys
		for i := n - 1; i >= 0; i-- {
			if nonUnit {
				x[i] /= a[i*lda+i]
			}
			if i > 0 {
				g.Daxpy(i, -x[i], a[i*lda:], 1, x, 1)
			}
		}
	}
}
