package blas3

import (
	"runtime"
	"sync"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
)

// Dtrmm computes B = α·op(A)·B (side Left) or B = α·B·op(A) (side Right)
// for the m×n matrix B and triangular A; see gonum's Dtrmm. gonum's Dtrtri
// and Dlauum (the Cholesky inverse, mat.Cholesky.InverseTo) call it.
func (impl Implementation) Dtrmm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	interrupt.Check()
	defer interrupt.Check()
	k, rhs := m, n
	if s == blas.Right {
		k, rhs = n, m
	}
	if (s != blas.Left && s != blas.Right) || (ul != blas.Upper && ul != blas.Lower) ||
		!validTrans(tA) || (d != blas.Unit && d != blas.NonUnit) || m <= 0 || n <= 0 ||
		lda < max(1, k) || ldb < max(1, n) || len(a) < lda*(k-1)+k ||
		len(b) < ldb*(m-1)+n || rhs < minTrsm {
		impl.Implementation.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	calls.Add(1)
	trmm(s == blas.Left, ul == blas.Upper, isTrans(tA), d == blas.Unit, m, n, alpha, a, lda, b, ldb)
}

// trmm computes the product in place on the packed micro-kernel, with
// op(A) packed as the operand of a DGEMM whose entries outside the
// triangle are set to zero (and the diagonal to one if unit) after
// packing, so the other triangle is never used and the product runs at
// DGEMM's speed, wasting only the zeros of the diagonal KC×KC blocks.
// Side Left: the columns of B are independent, so they are split over
// the processors; side Right: the rows.
//
// It is in place because every part of B is packed before it is
// overwritten. Side Left, op(A) upper: row i of the product needs rows
// p ≥ i of B, so the slices of KC rows of B are taken in ascending order;
// once a slice is packed, its rows are set to zero (their products start
// with this slice) and the products of the slice go into rows above its
// end, none of which a later slice reads. op(A) lower is the mirror image
// (descending), and side Right does the same over slices of columns,
// packing each block of rows of a slice, then zeroing it. Side Right packs
// the whole of op(A)'s columns in one slab, so for k > NC it first splits
// op(A) in halves (trmmHalves).
func trmm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if alpha == 0 {
		scale(0, m, n, b, ldb)
		return
	}
	s := current()
	t := view{a, lda, trans}
	lower := upper == trans // op(A) is lower triangular
	if !left && n > s.nc {
		trmmHalves(left, upper, trans, unit, m, n, alpha, a, lda, b, ldb)
		return
	}
	k := m
	if !left {
		k = n
	}
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || m*n*k < minPar {
		if left {
			trmmLeft(s, lower, unit, k, n, alpha, t, b, ldb)
		} else {
			trmmRight(s, lower, unit, m, k, alpha, t, b, ldb)
		}
		return
	}
	var wg sync.WaitGroup
	if left {
		part := roundUp((n+workers-1)/workers, s.nr)
		for j0 := part; j0 < n; j0 += part {
			wg.Go(func() { trmmLeft(s, lower, unit, k, min(part, n-j0), alpha, t, b[j0:], ldb) })
		}
		trmmLeft(s, lower, unit, k, min(part, n), alpha, t, b, ldb)
	} else {
		part := roundUp((m+workers-1)/workers, s.mr)
		for i0 := part; i0 < m; i0 += part {
			wg.Go(func() { trmmRight(s, lower, unit, min(part, m-i0), k, alpha, t, b[i0*ldb:], ldb) })
		}
		trmmRight(s, lower, unit, min(part, m), k, alpha, t, b, ldb)
	}
	wg.Wait()
}

// slices returns the start of the i-th of the ⌈k/kc⌉ slices of [0, k),
// ascending or descending.
func slice(i, k, kc int, ascending bool) int {
	if ascending {
		return i * kc
	}
	return ((k-1)/kc - i) * kc
}

// trmmLeft is B = α·T·B on the calling goroutine, T = op(A) k×k, B k×n.
func trmmLeft(s *shape, lower, unit bool, k, n int, alpha float64, t view, b []float64, ldb int) {
	mr, nr := s.mr, s.nr
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	kcMax := min(s.kc, k)
	buf.a = grow(buf.a, roundUp(min(s.mc, k), mr)*kcMax)
	buf.b = grow(buf.b, roundUp(min(s.nc, n), nr)*kcMax)
	buf.t = grow(buf.t, mr*nr)
	bv := view{b, ldb, false}
	for jc := 0; jc < n; jc += s.nc {
		nc := min(s.nc, n-jc)
		for q := 0; q*s.kc < k; q++ {
			pc := slice(q, k, s.kc, !lower)
			kc := min(s.kc, k-pc)
			packB(buf.b, bv, pc, kc, jc, nc, nr)
			for i := pc; i < pc+kc; i++ {
				clear(b[i*ldb+jc : i*ldb+jc+nc])
			}
			// The rows of T with entries in columns [pc, pc+kc).
			r0, r1 := 0, pc+kc
			if lower {
				r0, r1 = pc, k
			}
			for ic := r0; ic < r1; ic += s.mc {
				if interrupt.Raised() {
					return // the exported routine panics
				}
				mc := min(s.mc, r1-ic)
				packA(buf.a, t, ic, mc, pc, kc, mr)
				maskA(buf.a, ic, mc, pc, kc, mr, lower, unit)
				// Rows i take depths p with pc+p ≥ i (upper) or ≤ i (lower).
				macroTri(s, mc, nc, kc, alpha, buf.a, buf.b, b[ic*ldb+jc:], ldb, buf.t, func(ir, _ int) (int, int) {
					r := ic + ir - pc
					if lower {
						return 0, min(kc, r+mr)
					}
					return max(0, r), kc
				})
			}
		}
	}
}

// trmmRight is B = α·B·T on the calling goroutine, B m×k, T = op(A) k×k,
// k ≤ NC.
func trmmRight(s *shape, lower, unit bool, m, k int, alpha float64, t view, b []float64, ldb int) {
	mr, nr := s.mr, s.nr
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	kcMax := min(s.kc, k)
	buf.a = grow(buf.a, roundUp(min(s.mc, m), mr)*kcMax)
	buf.b = grow(buf.b, roundUp(k, nr)*kcMax)
	buf.t = grow(buf.t, mr*nr)
	bv := view{b, ldb, false}
	for q := 0; q*s.kc < k; q++ {
		pc := slice(q, k, s.kc, lower)
		kc := min(s.kc, k-pc)
		// The columns of T with entries in rows [pc, pc+kc).
		c0, c1 := pc, k
		if lower {
			c0, c1 = 0, pc+kc
		}
		packB(buf.b, t, pc, kc, c0, c1-c0, nr)
		maskB(buf.b, pc, kc, c0, c1-c0, nr, lower, unit)
		for ic := 0; ic < m; ic += s.mc {
			if interrupt.Raised() {
				return // the exported routine panics
			}
			mc := min(s.mc, m-ic)
			packA(buf.a, bv, ic, mc, pc, kc, mr)
			for i := ic; i < ic+mc; i++ {
				clear(b[i*ldb+pc : i*ldb+pc+kc])
			}
			// Columns j take depths p with pc+p ≤ j (upper) or ≥ j (lower).
			macroTri(s, mc, c1-c0, kc, alpha, buf.a, buf.b, b[ic*ldb+c0:], ldb, buf.t, func(_, jr int) (int, int) {
				c := c0 + jr - pc
				if lower {
					return max(0, c), kc
				}
				return 0, min(kc, c+nr)
			})
		}
	}
}

// macroTri is macro for a product with a triangular factor: depth(ir,
// jr) is the range [lo, hi) of the KC slice outside which the tile's
// terms are all zero (the masked part of the triangle), and the
// micro-kernel runs over that range only, so the zeros of the diagonal
// blocks cost MR·NR per tile rather than half the block.
func macroTri(s *shape, mc, nc, kc int, alpha float64, pa, pb, c []float64, ldc int, tile []float64, depth func(ir, jr int) (int, int)) {
	mr, nr := s.mr, s.nr
	for jr := 0; jr < nc; jr += nr {
		nn := min(nr, nc-jr)
		for ir := 0; ir < mc; ir += mr {
			lo, hi := depth(ir, jr)
			if lo >= hi {
				continue
			}
			mm := min(mr, mc-ir)
			ap := pa[ir*kc+lo*mr : ir*kc+hi*mr]
			bp := pb[jr*kc+lo*nr : jr*kc+hi*nr]
			off := ir*ldc + jr
			if mm == mr && nn == nr {
				s.kern(hi-lo, ap, bp, c[off:], ldc, alpha)
				continue
			}
			clear(tile)
			s.kern(hi-lo, ap, bp, tile, nr, alpha)
			for i := range mm {
				ci := c[off+i*ldc : off+i*ldc+nn]
				for j, v := range tile[i*nr : i*nr+nn] {
					ci[j] += v
				}
			}
		}
	}
}

// maskA sets the entries of the packed block T[i0:i0+mc, p0:p0+kc] (micro-
// panels of mr rows) that lie outside T's triangle to zero, and its
// diagonal to one if unit.
func maskA(d []float64, i0, mc, p0, kc, mr int, lower, unit bool) {
	for ir := 0; ir < mc; ir += mr {
		panel := d[ir*kc : (ir+mr)*kc]
		for i := range min(mr, mc-ir) {
			row := i0 + ir + i - p0     // the diagonal's column in the slice
			lo, hi := max(0, row+1), kc // lower: zero the columns after it
			if !lower {
				lo, hi = 0, min(kc, row) // upper: the columns before it
			}
			for p := lo; p < hi; p++ {
				panel[p*mr+i] = 0
			}
			if unit && row >= 0 && row < kc {
				panel[row*mr+i] = 1
			}
		}
	}
}

// maskB is maskA for the packed block T[p0:p0+kc, j0:j0+nc] (micro-panels
// of nr columns).
func maskB(d []float64, p0, kc, j0, nc, nr int, lower, unit bool) {
	for jr := 0; jr < nc; jr += nr {
		panel := d[jr*kc : (jr+nr)*kc]
		for j := range min(nr, nc-jr) {
			col := j0 + jr + j - p0     // the diagonal's row in the slice
			lo, hi := max(0, col+1), kc // upper: zero the rows below it
			if lower {
				lo, hi = 0, min(kc, col) // lower: the rows above it
			}
			for p := lo; p < hi; p++ {
				panel[p*nr+j] = 0
			}
			if unit && col >= 0 && col < kc {
				panel[col*nr+j] = 1
			}
		}
	}
}

// trmmHalves is trmm by halves of op(A) = [T₁₁ T₁₂; T₂₁ T₂₂] (one of T₁₂,
// T₂₁ zero), with B cut to match: the off-diagonal block is one DGEMM and
// the diagonal blocks are trmm again. Each step reads only the part of B
// not yet overwritten, which fixes the order of the three.
func trmmHalves(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	k := m
	if !left {
		k = n
	}
	op := view{a, lda, trans}
	lower := upper == trans
	h := k / 2
	a22 := a[h*lda+h:]
	rec := func(m, n int, a, b []float64) { trmm(left, upper, trans, unit, m, n, alpha, a, lda, b, ldb) }
	switch {
	case left && !lower: // B₁ = T₁₁B₁ + T₁₂B₂, B₂ = T₂₂B₂
		b2 := b[h*ldb:]
		rec(h, n, a, b)
		gemm(h, n, k-h, alpha, op.sub(0, h), view{b2, ldb, false}, b, ldb)
		rec(k-h, n, a22, b2)
	case left: // B₂ = T₂₁B₁ + T₂₂B₂, B₁ = T₁₁B₁
		b2 := b[h*ldb:]
		rec(k-h, n, a22, b2)
		gemm(k-h, n, h, alpha, op.sub(h, 0), view{b, ldb, false}, b2, ldb)
		rec(h, n, a, b)
	case !lower: // B₂ = B₁T₁₂ + B₂T₂₂, B₁ = B₁T₁₁
		b2 := b[h:]
		rec(m, k-h, a22, b2)
		gemm(m, k-h, h, alpha, view{b, ldb, false}, op.sub(0, h), b2, ldb)
		rec(m, h, a, b)
	default: // B₁ = B₁T₁₁ + B₂T₂₁, B₂ = B₂T₂₂
		b2 := b[h:]
		rec(m, h, a, b)
		gemm(m, h, k-h, alpha, view{b2, ldb, false}, op.sub(h, 0), b, ldb)
		rec(m, k-h, a22, b2)
	}
}
