package blas3

import (
	"sync/atomic"

	"github.com/kml-lang/kml/runtime/interrupt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

func init() { blas64.Use(Implementation{}) }

// Implementation is gonum's float64 BLAS with Dgemm, Dsyrk and Dtrsm
// replaced by this package's blocked kernels. Calls with invalid arguments
// go to gonum's code, so they panic with gonum's messages.
type Implementation struct {
	gonum.Implementation
}

var _ blas.Float64 = Implementation{}

// calls counts the level-3 calls that ran on this package's kernels; tests
// use it to see that gonum routes through them.
var calls atomic.Int64

func isTrans(t blas.Transpose) bool { return t == blas.Trans || t == blas.ConjTrans }

func validTrans(t blas.Transpose) bool {
	return t == blas.NoTrans || t == blas.Trans || t == blas.ConjTrans
}

// Dgemm computes C = α·op(A)·op(B) + β·C; see gonum's Dgemm.
func (impl Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	interrupt.Check()
	defer interrupt.Check()
	aT, bT := isTrans(tA), isTrans(tB)
	ar, ac := m, k
	if aT {
		ar, ac = k, m
	}
	br, bc := k, n
	if bT {
		br, bc = n, k
	}
	if !validTrans(tA) || !validTrans(tB) || m <= 0 || n <= 0 || k < 0 ||
		lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) ||
		(k > 0 && (len(a) < (ar-1)*lda+ac || len(b) < (br-1)*ldb+bc)) ||
		len(c) < (m-1)*ldc+n || m*n*k < minGemm {
		impl.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	calls.Add(1)
	scale(beta, m, n, c, ldc)
	gemm(m, n, k, alpha, view{a, lda, aT}, view{b, ldb, bT}, c, ldc)
}

// scale sets the m×n matrix C to β·C, to zero (whatever it held) when β
// is zero, as the reference BLAS does.
func scale(beta float64, m, n int, c []float64, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		ci := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(ci)
			continue
		}
		for j := range ci {
			ci[j] *= beta
		}
	}
}

// minSyrk is n·n·k below which Dsyrk uses gonum's code.
var minSyrk = 32 * 32 * 32

// Dsyrk computes the uplo triangle of C = α·A·Aᵀ + β·C (tA NoTrans, A n×k)
// or C = α·Aᵀ·A + β·C (tA Trans, A k×n); see gonum's Dsyrk.
func (impl Implementation) Dsyrk(ul blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	interrupt.Check()
	defer interrupt.Check()
	aT := isTrans(tA)
	ar, ac := n, k
	if aT {
		ar, ac = k, n
	}
	if (ul != blas.Upper && ul != blas.Lower) || !validTrans(tA) || n <= 0 || k < 0 ||
		lda < max(1, ac) || ldc < max(1, n) || len(a) < lda*(ar-1)+ac ||
		len(c) < ldc*(n-1)+n || n*n*k < minSyrk {
		impl.Implementation.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, c, ldc)
		return
	}
	calls.Add(1)
	syrk(ul == blas.Upper, n, k, alpha, view{a, lda, aT}, beta, c, ldc)
}

// syrk is Dsyrk with op(A) = a (n×k).
func syrk(upper bool, n, k int, alpha float64, a view, beta float64, c []float64, ldc int) {
	// gonum's Dsyrk sets C to zero when β = 0, except for the lower
	// triangle of α·AᵀA with α ≠ 0, which it multiplies by β, so that a NaN
	// in C stays NaN. Do the same.
	zero := beta == 0 && (upper || !a.trans || alpha == 0)
	for i := range n {
		lo, hi := 0, i+1
		if upper {
			lo, hi = i, n
		}
		ci := c[i*ldc+lo : i*ldc+hi]
		if zero {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
	if alpha == 0 || k == 0 {
		return
	}
	syrkPacked(current(), upper, n, k, alpha, a, a.t(), c, ldc, nil, 0)
}

// Dgemmt computes the uplo triangle of C = α·op(A)·op(B) + β·C, op(A)
// being n×k and op(B) k×n, and leaves the other triangle as it is (MKL's
// dgemmt): for a product known to be symmetric, or of which one triangle
// is wanted, at about half DGEMM's work. It is blocked as Dsyrk is, with
// op(B) packed in the place of op(A)ᵀ. Invalid arguments panic.
func Dgemmt(ul blas.Uplo, tA, tB blas.Transpose, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	interrupt.Check()
	defer interrupt.Check()
	aT, bT := isTrans(tA), isTrans(tB)
	ar, ac := n, k
	if aT {
		ar, ac = k, n
	}
	br, bc := k, n
	if bT {
		br, bc = n, k
	}
	if (ul != blas.Upper && ul != blas.Lower) || !validTrans(tA) || !validTrans(tB) || n < 0 || k < 0 ||
		lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) ||
		(n > 0 && k > 0 && (len(a) < lda*(ar-1)+ac || len(b) < ldb*(br-1)+bc)) ||
		(n > 0 && len(c) < ldc*(n-1)+n) {
		panic("blas3: Dgemmt: bad argument")
	}
	upper := ul == blas.Upper
	for i := range n {
		lo, hi := 0, i+1
		if upper {
			lo, hi = i, n
		}
		ci := c[i*ldc+lo : i*ldc+hi]
		if beta == 0 {
			clear(ci)
		} else if beta != 1 {
			for j := range ci {
				ci[j] *= beta
			}
		}
	}
	if alpha == 0 || k == 0 || n == 0 {
		return
	}
	av, bv := view{a, lda, aT}, view{b, ldb, bT}
	if n*n*k < minSyrk {
		for i := range n {
			lo, hi := 0, i+1
			if upper {
				lo, hi = i, n
			}
			for j := lo; j < hi; j++ {
				var s float64
				for p := range k {
					s += av.at(i, p) * bv.at(p, j)
				}
				c[i*ldc+j] += alpha * s
			}
		}
		return
	}
	calls.Add(1)
	syrkPacked(current(), upper, n, k, alpha, av, bv, c, ldc, nil, 0)
}
