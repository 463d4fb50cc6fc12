package blas3

import (
	"sync"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// potrfBlock is the number of columns of a panel of potrfAhead. Measured
// (AVX-512, load 0.4-1.0, LAPACK Dpotrf alone, GFLOP/s wall clock), panels
// of 64, 96, 128, 192, 256 give 36.0, 48.5, 54.0, 49.7, 43.5 at n = 1000
// and 47.3, 58.6, 62.9, 65.0, 65.3 at n = 2000, against gonum's
// left-looking 35.9 and 54.6.
var potrfBlock = 128

// potrfAhead is Dpotrf for orders up to potrfLeaf: right-looking by
// panels of potrfBlock with a look-ahead of one panel, so that the serial
// parts of each step overlap with the bulk of the work on the other core.
// gonum's Dpotrf is left-looking by panels of 64: each step is a DSYRK and
// an unblocked Dpotf2 on the 64×64 diagonal block, which run on one core,
// then a DGEMM and a DTRSM with 64 rows, so one core waits through the
// first two and every packed panel of the DGEMM serves 64 rows only.
//
// For the upper triangle, after panel k (rows [k₀, k₁)) is factored and
// solved, U_k = [U_kk U_k,>], the trailing matrix needs
// A_>> −= U_k,>ᵀU_k,>. Its next block row [k₁, k₂) is updated, factored
// (U_k+1,k+1 = chol of the diagonal block) and solved (the rest of the
// row, by DTRSM with U_k+1,k+1ᵀ) on the calling goroutine, while another
// updates rows [k₂, n) with one DSYRK; both are done before the next step.
// The two write disjoint rows and read only panel k, and every element is
// computed by the same calls whatever runs first, so the factor is the same
// to the bit on any number of processors. The lower triangle is the
// transpose (block columns instead of rows).
//
// An interrupt makes the BLAS routine that sees it panic with
// interrupt.Stop; a panic on the other goroutine is recovered and raised
// again on the caller once both are back.
//
// With src non-nil (lower only), a's lower triangle is first set to src's
// (leading dimension lds): the first two panels are copied before the
// first step, and the rest inside the first trailing update, tile by tile
// (syrkPacked), so the copy costs no pass over memory of its own.
func (impl Lapack) potrfAhead(ul blas.Uplo, n int, a []float64, lda int, src []float64, lds int) bool {
	nb := potrfBlock
	if src != nil {
		copyLower(a, lda, src, lds, n, min(2*nb, n))
	}
	if n <= nb {
		return impl.Implementation.Dpotrf(ul, n, a, lda)
	}
	bi := blas64.Implementation()
	upper := ul == blas.Upper
	// factor factors the diagonal block [k₀, k₁) and solves the rest of
	// its block row (upper) or column (lower).
	factor := func(k0, k1 int) bool {
		if !impl.Implementation.Dpotrf(ul, k1-k0, a[k0*lda+k0:], lda) {
			return false
		}
		if k1 < n {
			if upper {
				bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, k1-k0, n-k1, 1, a[k0*lda+k0:], lda, a[k0*lda+k1:], lda)
			} else {
				bi.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n-k1, k1-k0, 1, a[k0*lda+k0:], lda, a[k1*lda+k0:], lda)
			}
		}
		return true
	}
	if !factor(0, nb) {
		return false
	}
	for k0 := 0; k0+nb < n; k0 += nb {
		interrupt.Check()
		k1 := k0 + nb
		k2 := min(k1+nb, n)
		kb, jb := k1-k0, k2-k1
		var (
			wg     sync.WaitGroup
			caught any
		)
		if k2 < n {
			wg.Go(func() {
				defer func() { caught = recover() }()
				switch {
				case src != nil && k0 == 0:
					syrkFrom(n-k2, kb, -1, a[k2*lda:], lda, a[k2*lda+k2:], lda, src[k2*lds+k2:], lds)
				case upper:
					bi.Dsyrk(blas.Upper, blas.Trans, n-k2, kb, -1, a[k0*lda+k2:], lda, 1, a[k2*lda+k2:], lda)
				default:
					bi.Dsyrk(blas.Lower, blas.NoTrans, n-k2, kb, -1, a[k2*lda+k0:], lda, 1, a[k2*lda+k2:], lda)
				}
			})
		}
		ok := func() bool {
			defer wg.Wait()
			if upper {
				bi.Dsyrk(blas.Upper, blas.Trans, jb, kb, -1, a[k0*lda+k1:], lda, 1, a[k1*lda+k1:], lda)
				if k2 < n {
					bi.Dgemm(blas.Trans, blas.NoTrans, jb, n-k2, kb, -1, a[k0*lda+k1:], lda, a[k0*lda+k2:], lda, 1, a[k1*lda+k2:], lda)
				}
			} else {
				bi.Dsyrk(blas.Lower, blas.NoTrans, jb, kb, -1, a[k1*lda+k0:], lda, 1, a[k1*lda+k1:], lda)
				if k2 < n {
					bi.Dgemm(blas.NoTrans, blas.Trans, n-k2, jb, kb, -1, a[k2*lda+k0:], lda, a[k1*lda+k0:], lda, 1, a[k2*lda+k1:], lda)
				}
			}
			return factor(k1, k2)
		}()
		if caught != nil {
			panic(caught)
		}
		if !ok {
			return false
		}
	}
	return true
}

// copyLower sets the first cols columns of the lower triangle of the n×n
// matrix a (leading dimension lda) to src's (leading dimension lds), and
// the strict upper part of each row wholly inside them, the first cols
// rows, to zero.
func copyLower(a []float64, lda int, src []float64, lds int, n, cols int) {
	for i := range n {
		w := min(i+1, cols)
		copy(a[i*lda:i*lda+w], src[i*lds:i*lds+w])
		if i < cols {
			clear(a[i*lda+i+1 : i*lda+n])
		}
	}
}

// PotrfLowerFrom is Dpotrf of the lower triangle of src (n×n, leading
// dimension lds) into the lower triangle of dst (leading dimension ldd),
// as LAPACK's Dpotrf on a copy but without the copy's own pass: src's
// triangle is read once, by the factorisation's first steps (potrfAhead).
// dst's strict upper triangle is set to zero in the same passes, so dst
// may hold anything before (linalg.CholLowerFrom gives it memory that was
// never zeroed); its padding past column n and src are not written.
//
// It reports whether the matrix is positive definite, leaving dst
// unspecified when not; a NaN or an infinity in src's lower triangle makes
// it fail too: the diagonal is checked first, and a non-finite element
// below it makes its row of the factor non-finite, whose squares reach
// that row's pivot (NaN or −∞).
func PotrfLowerFrom(n int, dst []float64, ldd int, src []float64, lds int) bool {
	interrupt.Check()
	if n == 0 {
		return true
	}
	if ldd < n || lds < n || len(dst) < (n-1)*ldd+n || len(src) < (n-1)*lds+n {
		panic("blas3: PotrfLowerFrom: bad dimensions")
	}
	for i := range n {
		if x := src[i*lds+i]; x-x != 0 {
			return false
		}
	}
	return Lapack{}.potrfFrom(n, dst, ldd, src, lds)
}

// potrfFrom is Dpotrf (lower) from src into a, by halves above potrfLeaf
// as Dpotrf is: the second half's rows are copied for the DTRSM, the
// first half's right of it set to zero, and the trailing block reads src
// inside its DSYRK.
func (impl Lapack) potrfFrom(n int, a []float64, lda int, src []float64, lds int) bool {
	if n <= potrfLeaf {
		return impl.potrfAhead(blas.Lower, n, a, lda, src, lds)
	}
	h := n / 2
	if !impl.potrfFrom(h, a, lda, src, lds) {
		return false
	}
	for i := range h {
		clear(a[i*lda+h : i*lda+n])
	}
	for i := h; i < n; i++ {
		copy(a[i*lda:i*lda+h], src[i*lds:i*lds+h])
	}
	a21, a22 := a[h*lda:], a[h*lda+h:]
	blas64.Implementation().Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n-h, h, 1, a, lda, a21, lda)
	syrkFrom(n-h, h, -1, a21, lda, a22, lda, src[h*lds+h:], lds)
	interrupt.Check()
	return impl.Dpotrf(blas.Lower, n-h, a22, lda)
}

// syrkFrom is Dsyrk (lower, A n×k not transposed, β = 1) on C after C's
// lower triangle is set to src's: the copy is done inside syrkPacked where
// Dsyrk would use it, else before gonum's Dsyrk, so the result is Dsyrk's
// on a copy, to the bit.
func syrkFrom(n, k int, alpha float64, a []float64, lda int, c []float64, ldc int, src []float64, lds int) {
	if n*n*k < minSyrk {
		copyLower(c, ldc, src, lds, n, n)
		blas64.Implementation().Dsyrk(blas.Lower, blas.NoTrans, n, k, alpha, a, lda, 1, c, ldc)
		return
	}
	syrkPacked(current(), false, n, k, alpha, view{a, lda, false}, view{a, lda, true}, c, ldc, src, lds)
}
