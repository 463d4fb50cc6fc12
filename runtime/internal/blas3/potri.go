package blas3

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// The Cholesky inverse, mat.Cholesky.InverseTo, is LAPACK's Dpotri:
// Dtrtri inverts the factor, Dlauum forms U⁻¹U⁻ᵀ (or L⁻ᵀL⁻¹) in place.
// gonum's two work in columns of 64: every DTRMM, DGEMM and DSYRK they
// call has 64 rows or columns, so each packed panel of the other operand
// serves 64 rows only, and the products run at half of DGEMM's speed.
// Here both recurse on halves, so nearly all of the work is in a few
// products of order n/2, n/4, … . gonum's Dpotri calls gonum's own
// Dtrtri and Dlauum (Go's embedding does not dispatch to the outer
// type's methods), so Lapack overrides Dpotri as well.

// potriLeaf is the order up to which Dtrtri and Dlauum are gonum's code
// (unblocked at 64 or less). Measured with the in-place DTRMM (AVX-512,
// load 3.6-3.8, processor time of the inverse, two runs each): leaves of
// 32, 64, 128 give 44.5-46.3, 46.1-46.2, 44.8 GFLOP/cpu-s at n = 1000 and
// 54.6-55.8, 54.2-54.7, 50.6-50.7 at n = 2000. (Before that DTRMM, the
// recursion with leaves of 64-256 gained 8% at n = 1000 and 45% at
// n = 2000 over gonum's Dpotri, load 1.4-1.7.)
var potriLeaf = 64

// trtriCalls counts the recursive steps of Lapack's Dtrtri, for the tests.
var trtriCalls atomic.Int64

// Dpotri computes the inverse of the SPD matrix whose Cholesky factor is
// in a, overwriting the factor's triangle with the inverse's; see
// gonum's Dpotri. It returns false, with a unchanged, if the factor has a
// zero on its diagonal.
func (impl Lapack) Dpotri(ul blas.Uplo, n int, a []float64, lda int) bool {
	if !impl.Dtrtri(ul, blas.NonUnit, n, a, lda) {
		return false
	}
	impl.Dlauum(ul, n, a, lda)
	return true
}

// Dtrtri computes the inverse of the triangular matrix a in place; see
// gonum's Dtrtri. It returns false, with a unchanged, if diag is NonUnit
// and a has a zero on its diagonal. By halves, for the upper triangle,
//
//	[A₁₁ A₁₂]⁻¹   [A₁₁⁻¹  −A₁₁⁻¹A₁₂A₂₂⁻¹]
//	[ 0  A₂₂]   = [ 0      A₂₂⁻¹        ],
//
// so it inverts A₁₁ and A₂₂ (recursively) and then multiplies A₁₂ by the
// two inverses, each one DTRMM; the lower triangle is the transpose. This
// is the order of ReLAPACK's dtrtri and multiplies by computed inverses as
// LAPACK's blocked Dtrtri does, whose error bounds (Du Croz & Higham 1992,
// "Stability of methods for matrix inversion") are proportional to the
// condition number of A.
func (impl Lapack) Dtrtri(ul blas.Uplo, d blas.Diag, n int, a []float64, lda int) bool {
	interrupt.Check()
	if (ul != blas.Upper && ul != blas.Lower) || (d != blas.Unit && d != blas.NonUnit) ||
		n <= potriLeaf || lda < n || len(a) < (n-1)*lda+n {
		return impl.Implementation.Dtrtri(ul, d, n, a, lda)
	}
	if d == blas.NonUnit {
		for i := range n {
			if a[i*lda+i] == 0 {
				return false
			}
		}
	}
	impl.trtri(ul, d, n, a, lda)
	return true
}

// trtri is Dtrtri's recursion, on a triangle with no zero on its diagonal.
func (impl Lapack) trtri(ul blas.Uplo, d blas.Diag, n int, a []float64, lda int) {
	interrupt.Check()
	if n <= potriLeaf {
		impl.Implementation.Dtrtri(ul, d, n, a, lda)
		return
	}
	trtriCalls.Add(1)
	bi := blas64.Implementation()
	h := n / 2
	a22 := a[h*lda+h:]
	both(func() { impl.trtri(ul, d, h, a, lda) }, func() { impl.trtri(ul, d, n-h, a22, lda) })
	if ul == blas.Upper {
		a12 := a[h:]
		bi.Dtrmm(blas.Left, blas.Upper, blas.NoTrans, d, h, n-h, -1, a, lda, a12, lda)
		bi.Dtrmm(blas.Right, blas.Upper, blas.NoTrans, d, h, n-h, 1, a22, lda, a12, lda)
		return
	}
	a21 := a[h*lda:]
	bi.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, d, n-h, h, -1, a22, lda, a21, lda)
	bi.Dtrmm(blas.Right, blas.Lower, blas.NoTrans, d, n-h, h, 1, a, lda, a21, lda)
}

// Dlauum computes U·Uᵀ (upper) or Lᵀ·L (lower) of the triangle in a, in
// place; see gonum's Dlauum. By halves, for the upper triangle,
//
//	U·Uᵀ = [U₁₁U₁₁ᵀ + U₁₂U₁₂ᵀ   U₁₂U₂₂ᵀ]
//	       [·                  U₂₂U₂₂ᵀ],
//
// so the top left block is Dlauum of U₁₁ (recursively) plus one DSYRK,
// the top right one DTRMM, and the bottom right Dlauum of U₂₂; each step
// reads only parts of U not yet overwritten.
func (impl Lapack) Dlauum(ul blas.Uplo, n int, a []float64, lda int) {
	interrupt.Check()
	if (ul != blas.Upper && ul != blas.Lower) || n <= potriLeaf || lda < n || len(a) < (n-1)*lda+n {
		impl.Implementation.Dlauum(ul, n, a, lda)
		return
	}
	bi := blas64.Implementation()
	h := n / 2
	a22 := a[h*lda+h:]
	impl.Dlauum(ul, h, a, lda)
	if ul == blas.Upper {
		a12 := a[h:]
		bi.Dsyrk(blas.Upper, blas.NoTrans, h, n-h, 1, a12, lda, 1, a, lda)
		bi.Dtrmm(blas.Right, blas.Upper, blas.Trans, blas.NonUnit, h, n-h, 1, a22, lda, a12, lda)
	} else {
		a21 := a[h*lda:]
		bi.Dsyrk(blas.Lower, blas.Trans, h, n-h, 1, a21, lda, 1, a, lda)
		bi.Dtrmm(blas.Left, blas.Lower, blas.Trans, blas.NonUnit, n-h, h, 1, a22, lda, a21, lda)
	}
	impl.Dlauum(ul, n-h, a22, lda)
}

// both runs f and g, on two goroutines if there are two processors: the
// halves of Dtrtri are independent, and running them side by side keeps
// both processors busy in the leaves and small products, which run on one.
// A panic in f (interrupt.Stop from a BLAS call) is raised again on the
// calling goroutine once both are done.
func both(f, g func()) {
	if runtime.GOMAXPROCS(0) < 2 {
		f()
		g()
		return
	}
	var (
		wg sync.WaitGroup
		p  any
	)
	wg.Go(func() {
		defer func() { p = recover() }()
		f()
	})
	func() {
		defer wg.Wait()
		g()
	}()
	if p != nil {
		panic(p)
	}
}
