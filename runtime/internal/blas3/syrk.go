package blas3

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/kml-lang/kml/runtime/interrupt"
)

// syrkPacked adds α·op(A)·op(B) into the upper or lower triangle of the
// n×n matrix C, op(A) being n×k and op(B) k×n: op(A)ᵀ for DSYRK, another
// matrix for Dgemmt. The columns of C are cut into slabs of NC
// and the depth into slices of KC, as in DGEMM; op(A)ᵀ's KC×NC slab is
// packed once, by all workers together, and serves every block row of C
// that reaches it. The block rows (MC rows each) are then handed out one
// at a time, the longest first, and each worker packs its rows of op(A)
// and walks the micro-tiles of its block row that meet the triangle.
//
// The earlier Dsyrk made one DGEMM per block row, which packed op(A)ᵀ
// again for each, so a Cholesky's trailing updates (k = 128) spent 15% of
// their time transposing the same panel into packed form (n = 2000).
//
// Every element of C is computed by one worker, by the same kernel calls
// in the same order whatever the number of workers, so the result does not
// depend on GOMAXPROCS or on scheduling.
//
// With src non-nil (leading dimension lds; lower only), C's lower
// triangle is first set to src's and its strict upper triangle to zero, a
// block row at a time just before the first slice of the depth is added
// into it, rather than in a pass of its own (potrfFrom): the rows are then
// still in cache when the kernels read them, and the writes of the zeros
// overlap the kernels' arithmetic on the other rows.
func syrkPacked(s *shape, upper bool, n, k int, alpha float64, a, b view, c []float64, ldc int, src []float64, lds int) {
	if src != nil && upper {
		panic("blas3: syrkPacked copies into a lower triangle only")
	}
	mr, nr, mb := s.mr, s.nr, s.mc
	ncMax := s.nc
	workers := runtime.GOMAXPROCS(0)
	if n*n*k < 2*minPar {
		workers = 1
	}
	kcMax := min(s.kc, k)
	main := pool.Get().(*buffers)
	defer pool.Put(main)
	main.b = grow(main.b, roundUp(min(ncMax, n), nr)*kcMax)
	pb := main.b
	rows := (n + mb - 1) / mb
	for jc := 0; jc < n; jc += ncMax {
		jn := min(ncMax, n-jc)
		// The block rows that meet columns [jc, jc+jn) in the triangle.
		first, last := 0, rows
		if upper {
			last = (jc + jn + mb - 1) / mb
		} else {
			first = jc / mb
		}
		for pc := 0; pc < k; pc += s.kc {
			if interrupt.Raised() {
				return // the exported routine panics
			}
			kc := min(s.kc, k-pc)
			// Pack op(B)[pc:pc+kc, jc:jc+jn], the micro-panels split
			// among the workers.
			panels := (jn + nr - 1) / nr
			parallel(workers, panels, func(p0, p1 int) {
				j0, j1 := p0*nr, min(p1*nr, jn)
				packB(pb[j0*kc:], b, pc, kc, jc+j0, j1-j0, nr)
			})
			// The block rows, longest first: lower triangles are longest
			// at the bottom, upper at the top.
			var next atomic.Int64
			work := func() {
				buf := pool.Get().(*buffers)
				defer pool.Put(buf)
				buf.a = grow(buf.a, roundUp(mb, mr)*kc)
				buf.t = grow(buf.t, mr*nr)
				for {
					r := int(next.Add(1)) - 1
					if r >= last-first || interrupt.Raised() {
						return
					}
					if upper {
						r = first + r
					} else {
						r = last - 1 - r
					}
					i0 := r * mb
					i1 := min(i0+mb, n)
					if src != nil && pc == 0 {
						// The block row's part of the triangle, row by row
						// (sequential reads), while it is about to be used;
						// in the first panel, which every row meets, the
						// row's strict upper part is set to zero.
						for i := i0; i < i1; i++ {
							if hi := min(jc+jn, i+1); jc < hi {
								copy(c[i*ldc+jc:i*ldc+hi], src[i*lds+jc:i*lds+hi])
							}
							if jc == 0 {
								clear(c[i*ldc+i+1 : i*ldc+n])
							}
						}
					}
					packA(buf.a, a, i0, i1-i0, pc, kc, mr)
					syrkMacro(s, upper, i0, i1-i0, jc, jn, kc, alpha, buf.a, pb, c[i0*ldc+jc:], ldc, buf.t)
				}
			}
			var wg sync.WaitGroup
			for range workers - 1 {
				wg.Go(work)
			}
			work()
			wg.Wait()
		}
	}
}

// syrkMacro is macro for the rows [i0, i0+mc) and columns [j0, j0+nc) of
// C (c points at C[i0, j0]) restricted to the upper or lower triangle:
// micro-tiles wholly outside it are skipped, tiles wholly inside go to C
// directly, and tiles that cross the diagonal go through the scratch tile,
// of which only the triangle's elements are added.
func syrkMacro(s *shape, upper bool, i0, mc, j0, nc, kc int, alpha float64, pa, pb, c []float64, ldc int, tile []float64) {
	mr, nr := s.mr, s.nr
	for jr := 0; jr < nc; jr += nr {
		nn := min(nr, nc-jr)
		gj0, gj1 := j0+jr, j0+jr+nn-1 // first and last column of the tile
		bp := pb[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			mm := min(mr, mc-ir)
			gi0, gi1 := i0+ir, i0+ir+mm-1
			var inside bool
			if upper {
				if gj1 < gi0 {
					continue
				}
				inside = gj0 >= gi1
			} else {
				if gj0 > gi1 {
					continue
				}
				inside = gj1 <= gi0
			}
			ap := pa[ir*kc : (ir+mr)*kc]
			off := ir*ldc + jr
			if inside && mm == mr && nn == nr {
				s.kern(kc, ap, bp, c[off:], ldc, alpha)
				continue
			}
			clear(tile)
			s.kern(kc, ap, bp, tile, nr, alpha)
			for i := range mm {
				ci := c[off+i*ldc : off+i*ldc+nn]
				for j, v := range tile[i*nr : i*nr+nn] {
					if gi, gj := gi0+i, gj0+j; (upper && gj >= gi) || (!upper && gj <= gi) {
						ci[j] += v
					}
				}
			}
		}
	}
}

// parallel runs f on [0, n) cut into up to workers contiguous parts, one
// on the calling goroutine.
func parallel(workers, n int, f func(lo, hi int)) {
	if workers <= 1 || n < 2 {
		f(0, n)
		return
	}
	part := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := part; lo < n; lo += part {
		wg.Go(func() { f(lo, min(lo+part, n)) })
	}
	f(0, min(part, n))
	wg.Wait()
}
