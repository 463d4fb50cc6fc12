package blas3

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas/gonum"
)

// trsvBlock is the number of rows of a block of trsvBlocked.
const trsvBlock = 256

// minTrsvPar is the order from which Dtrsv goes by blocks over two
// goroutines (trsvBlocked). Measured (AVX-512, load 1.3-1.6, DTRSM with
// one right-hand side, N and T, GFLOP/s): by rows 2.2 and 3.1 at
// n = 4000, 5.3 and 6.2 at 2000, 5.0 and 5.7 at 1000; by blocks 2.9 and
// 3.3, 5.3 and 6.1, 5.3 and 5.8 from 3000, but 2.6 and 3.0, 4.4 and 4.8,
// 3.9 and 4.1 from 1000 (blocks of 128 were no better at 1000 and 2000:
// one fork-join per block costs more than the second core brings while A
// is in cache). mat.Cholesky.Factorize at n = 4000, whose condition
// estimate is some ten such solves: 56.1 -> 62.1 GFLOP/s.
var minTrsvPar = 3000

// trsvBlocked solves op(A)·x = b like Dtrsv's row loops, by blocks of
// trsvBlock rows, with the part of each step that is a rectangle of A
// split between two goroutines. A triangular solve reads each element of
// A once for two flops, so it runs at the speed at which one core streams
// A; two cores stream faster. Each block is a small triangle solved on the
// caller and a rectangle: for the row-dot solves (op(A) = U or L) the dots
// of the block's rows with the solved part of x, split by rows; for the
// axpy solves (Uᵀ, Lᵀ) the solved block's rows times its x, subtracted
// from the part of x still to solve, split by columns. Every element is
// computed by one goroutine in an order that depends only on n, so the
// result is the same on any number of processors; the axpy solves add the
// same terms in the same order as the unblocked loops, to the bit, and the
// dot solves split each dot in two.
func trsvBlocked(g gonum.Implementation, upper, trans, nonUnit bool, n int, a []float64, lda int, x []float64) {
	two := runtime.GOMAXPROCS(0) > 1
	// split runs f on [lo, mid) and [mid, hi), on two goroutines if there
	// are two processors.
	split := func(lo, hi int, f func(lo, hi int)) {
		if hi <= lo {
			return
		}
		mid := lo + (hi-lo)/2
		if !two {
			f(lo, mid)
			f(mid, hi)
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { f(mid, hi) })
		f(lo, mid)
		wg.Wait()
	}
	div := func(i int) {
		if nonUnit {
			x[i] /= a[i*lda+i]
		}
	}
	nblk := (n + trsvBlock - 1) / trsvBlock
	switch {
	case upper && !trans: // backward, row dots
		for b := nblk - 1; b >= 0; b-- {
			i0, i1 := b*trsvBlock, min((b+1)*trsvBlock, n)
			if i1 < n {
				split(i0, i1, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						x[i] -= g.Ddot(n-i1, a[i*lda+i1:], 1, x[i1:], 1)
					}
				})
			}
			for i := i1 - 1; i >= i0; i-- {
				x[i] -= g.Ddot(i1-i-1, a[i*lda+i+1:], 1, x[i+1:], 1)
				div(i)
			}
		}
	case !upper && !trans: // forward, row dots
		for b := range nblk {
			i0, i1 := b*trsvBlock, min((b+1)*trsvBlock, n)
			if i0 > 0 {
				split(i0, i1, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						x[i] -= g.Ddot(i0, a[i*lda:], 1, x, 1)
					}
				})
			}
			for i := i0; i < i1; i++ {
				x[i] -= g.Ddot(i-i0, a[i*lda+i0:], 1, x[i0:], 1)
				div(i)
			}
		}
	case upper: // Uᵀx = b: forward, row axpys
		for b := range nblk {
			i0, i1 := b*trsvBlock, min((b+1)*trsvBlock, n)
			for i := i0; i < i1; i++ {
				div(i)
				if i+1 < i1 {
					g.Daxpy(i1-i-1, -x[i], a[i*lda+i+1:], 1, x[i+1:], 1)
				}
			}
			split(i1, n, func(lo, hi int) {
				for i := i0; i < i1; i++ {
					g.Daxpy(hi-lo, -x[i], a[i*lda+lo:], 1, x[lo:], 1)
				}
			})
		}
	default: // Lᵀx = b: backward, row axpys
		for b := nblk - 1; b >= 0; b-- {
			i0, i1 := b*trsvBlock, min((b+1)*trsvBlock, n)
			for i := i1 - 1; i >= i0; i-- {
				div(i)
				if i > i0 {
					g.Daxpy(i-i0, -x[i], a[i*lda+i0:], 1, x[i0:], 1)
				}
			}
			split(0, i0, func(lo, hi int) {
				for i := i1 - 1; i >= i0; i-- {
					g.Daxpy(hi-lo, -x[i], a[i*lda+lo:], 1, x[lo:], 1)
				}
			})
		}
	}
}
