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
func (impl Lapack) potrfAhead(ul blas.Uplo, n int, a []float64, lda int) bool {
	nb := potrfBlock
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
				if upper {
					bi.Dsyrk(blas.Upper, blas.Trans, n-k2, kb, -1, a[k0*lda+k2:], lda, 1, a[k2*lda+k2:], lda)
				} else {
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
