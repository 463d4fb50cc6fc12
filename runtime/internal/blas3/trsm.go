package blas3

import (
	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
)

// trsmBlock is the order of the diagonal blocks of op(A) that Dtrsm
// inverts.
const trsmBlock = 64

// minTrsm is the number of right-hand sides (columns of B for side Left,
// rows for Right) below which Dtrsm uses gonum's code: with few of them the
// solve is a level-2 operation, and substitution does it with less work.
var minTrsm = 16

// Dtrsm solves op(A)·X = α·B (side Left) or X·op(A) = α·B (side Right) for
// X, overwriting the m×n matrix B; A is triangular. See gonum's Dtrsm.
func (impl Implementation) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	interrupt.Check()
	defer interrupt.Check()
	k, rhs := m, n
	if s == blas.Right {
		k, rhs = n, m
	}
	if (s != blas.Left && s != blas.Right) || (ul != blas.Upper && ul != blas.Lower) ||
		!validTrans(tA) || (d != blas.Unit && d != blas.NonUnit) || m <= 0 || n <= 0 ||
		lda < max(1, k) || ldb < max(1, n) || len(a) < lda*(k-1)+k ||
		len(b) < ldb*(m-1)+n || (rhs < minTrsm && rhs != 1) {
		impl.Implementation.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, b, ldb)
		return
	}
	if rhs == 1 {
		// One right-hand side is DTRSV: a column of B (stride ldb) for
		// side Left, a row for side Right, where x·op(A) = b is
		// op(A)ᵀ·xᵀ = bᵀ. gonum's Dtrsm walks that column one element
		// per row of A, 13 times slower at n = 1000 than Dtrsv's row
		// dots (0.54 against 7.3 GFLOP/s for SciPy's, load 0.9).
		x, inc, t := b, ldb, tA
		if s == blas.Right {
			inc = 1
			t = blas.Trans
			if isTrans(tA) {
				t = blas.NoTrans
			}
		}
		if alpha == 0 {
			for i := range k {
				x[i*inc] = 0
			}
			return
		}
		if alpha != 1 {
			impl.Dscal(k, alpha, x, inc)
		}
		impl.Dtrsv(ul, t, d, k, a, lda, x, inc)
		return
	}
	calls.Add(1)
	left, upper, trans, unit := s == blas.Left, ul == blas.Upper, isTrans(tA), d == blas.Unit
	if k <= trsmLeaf {
		trsm(left, upper, trans, unit, m, n, alpha, a, lda, b, ldb)
		return
	}
	scale(alpha, m, n, b, ldb)
	if alpha != 0 {
		trsmHalves(left, upper, trans, unit, m, n, a, lda, b, ldb)
	}
}

// trsmLeaf is the order of op(A) above which Dtrsm splits it in halves.
// Measured in Dpotrf (AVX-512, load 2.6-3.4, processor time): leaves of
// 128 and 256 give 41.4-41.8 GFLOP/cpu-s at n = 2000 against 39.0 without
// halves, and all three 30-31 at n = 1000.
var trsmLeaf = 256

// trsmHalves solves op(A)·X = B or X·op(A) = B in place by halves of
// op(A) = [T₁₁ T₁₂; T₂₁ T₂₂] (one of T₁₂, T₂₁ zero), B cut to match: one
// half of X is solved for (recursively), its product with the
// off-diagonal block is subtracted from the other half of B in one DGEMM,
// and the other half is solved for. trsm's blocks alone subtract the
// solved part with one DGEMM per block of trsmBlock rows, which packs all
// of the solved part again for each block; by halves the DGEMMs are of
// order k/2, k/4, … and the blocks only run below trsmLeaf.
func trsmHalves(left, upper, trans, unit bool, m, n int, a []float64, lda int, b []float64, ldb int) {
	k := m
	if !left {
		k = n
	}
	if k <= trsmLeaf {
		trsm(left, upper, trans, unit, m, n, 1, a, lda, b, ldb)
		return
	}
	if interrupt.Raised() {
		return // the exported routine panics
	}
	op := view{a, lda, trans}
	lower := upper == trans // op(A) is lower triangular
	h := k / 2
	a22 := a[h*lda+h:]
	rec := func(m, n int, a, b []float64) { trsmHalves(left, upper, trans, unit, m, n, a, lda, b, ldb) }
	switch {
	case left && lower: // T₁₁X₁ = B₁; T₂₂X₂ = B₂ − T₂₁X₁
		b2 := b[h*ldb:]
		rec(h, n, a, b)
		gemm(k-h, n, h, -1, op.sub(h, 0), view{b, ldb, false}, b2, ldb)
		rec(k-h, n, a22, b2)
	case left: // T₂₂X₂ = B₂; T₁₁X₁ = B₁ − T₁₂X₂
		b2 := b[h*ldb:]
		rec(k-h, n, a22, b2)
		gemm(h, n, k-h, -1, op.sub(0, h), view{b2, ldb, false}, b, ldb)
		rec(h, n, a, b)
	case !lower: // X₁T₁₁ = B₁; X₂T₂₂ = B₂ − X₁T₁₂
		b2 := b[h:]
		rec(m, h, a, b)
		gemm(m, k-h, h, -1, view{b, ldb, false}, op.sub(0, h), b2, ldb)
		rec(m, k-h, a22, b2)
	default: // X₂T₂₂ = B₂; X₁T₁₁ = B₁ − X₂T₂₁
		b2 := b[h:]
		rec(m, k-h, a22, b2)
		gemm(m, h, k-h, -1, view{b2, ldb, false}, op.sub(h, 0), b, ldb)
		rec(m, h, a, b)
	}
}

func trsm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	scale(alpha, m, n, b, ldb)
	if alpha == 0 {
		return
	}
	op := view{a, lda, trans}
	bv := view{b, ldb, false}
	// lower is whether op(A) is lower triangular.
	lower := upper == trans
	k := m
	if !left {
		k = n
	}
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	inv := grow(buf.a, trsmBlock*trsmBlock)
	buf.a = inv
	// Left with op(A) lower, or Right with op(A) upper, solves the blocks
	// forwards; the other two backwards.
	forward := lower == left
	for blk := 0; blk < k; blk += trsmBlock {
		if interrupt.Raised() {
			return // the exported routine panics
		}
		i0 := blk
		if !forward {
			i0 = max(k-blk-trsmBlock, 0)
		}
		i1 := min(i0+trsmBlock, k)
		if !forward {
			i1 = k - blk
		}
		nb := i1 - i0
		// Subtract the solved part: rows [i0, i1) of B minus op(A)[i0:i1, s]
		// times rows s of X (Left), or columns likewise (Right), where s is
		// [0, i0) forwards and [i1, k) backwards.
		s0, s1 := 0, i0
		if !forward {
			s0, s1 = i1, k
		}
		if s1 > s0 {
			if left {
				gemm(nb, n, s1-s0, -1, op.sub(i0, s0), bv.sub(s0, 0), b[i0*ldb:], ldb)
			} else {
				gemm(m, nb, s1-s0, -1, bv.sub(0, s0), op.sub(s0, i0), b[i0:], ldb)
			}
		}
		// Multiply by the inverse of the diagonal block. The inverse is
		// computed as a lower triangle: of op(A)'s block if that is lower,
		// else of its transpose, used transposed.
		t := inv[:nb*nb]
		d := op.sub(i0, i0)
		if !lower {
			d = d.t()
		}
		for i := range nb {
			for j := range nb {
				switch {
				case j > i:
					t[i*nb+j] = 0
				case j == i && unit:
					t[i*nb+j] = 1
				default:
					t[i*nb+j] = d.at(i, j)
				}
			}
		}
		buf.t = grow(buf.t, trsmBlock*trsmBlock/4)
		invLower(t, nb, buf.t)
		tv := view{t, nb, !lower}
		if left {
			// B_i = inv · B_i, through a copy of B_i.
			x := grow(buf.b, nb*n)
			buf.b = x
			for i := range nb {
				row := b[(i0+i)*ldb : (i0+i)*ldb+n]
				copy(x[i*n:(i+1)*n], row)
				clear(row)
			}
			gemm(nb, n, nb, 1, tv, view{x, n, false}, b[i0*ldb:], ldb)
		} else {
			x := grow(buf.b, m*nb)
			buf.b = x
			for i := range m {
				row := b[i*ldb+i0 : i*ldb+i1]
				copy(x[i*nb:(i+1)*nb], row)
				clear(row)
			}
			gemm(m, nb, nb, 1, view{x, nb, false}, tv, b[i0:], ldb)
		}
	}
}

// at is op(X)[i, j].
func (v view) at(i, j int) float64 {
	if v.trans {
		return v.data[j*v.ld+i]
	}
	return v.data[i*v.ld+j]
}

// invLowerLeaf is the order up to which invLower substitutes row by row;
// above it, it recurses on halves with DGEMMs for the off-diagonal block.
// Measured (BenchmarkInvLower, order 64 as trsm's diagonal blocks, load
// 9): 21-31 µs by halves with leaves of 16 against 59-117 µs row by row
// on AVX-512 and AVX2; leaves of 8 to 32 were within the noise of 16.
const invLowerLeaf = 16

// invLower overwrites the lower-triangular n×n matrix L (row-major, upper
// triangle zero, n ≤ trsmBlock) with L⁻¹. By halves,
// L = [L₁₁ 0; L₂₁ L₂₂] has L⁻¹ = [L₁₁⁻¹ 0; −L₂₂⁻¹L₂₁L₁₁⁻¹ L₂₂⁻¹]: both
// diagonal blocks are inverted in place (recursively), then L₂₁ is
// replaced by −L₂₂⁻¹(L₂₁L₁₁⁻¹) in two DGEMMs, so that most of the
// n³/6 multiply-adds run on the packed kernels; orders up to
// invLowerLeaf substitute row by row (invLowerRows). tmp holds at least
// ⌈n/2⌉·⌊n/2⌋ floats: trsm passes its pooled scratch, where an array on
// the stack escaped to the heap, 8 KiB for every diagonal block (14% of
// the bytes an evaluation of Laplace's approximation allocated at
// n = 207, BenchmarkLaplaceDigits).
func invLower(l []float64, n int, tmp []float64) {
	invLowerHalves(l, n, n, tmp)
}

// invLowerHalves is invLower on the n×n block at l with leading
// dimension ld; tmp holds at least ⌈n/2⌉·⌊n/2⌋ floats.
func invLowerHalves(l []float64, ld, n int, tmp []float64) {
	if n <= invLowerLeaf {
		invLowerRows(l, ld, n)
		return
	}
	h := n / 2
	m := n - h
	l21, l22 := l[h*ld:], l[h*ld+h:]
	invLowerHalves(l, ld, h, tmp)
	invLowerHalves(l22, ld, m, tmp)
	// X = L₂₁L₁₁⁻¹ (m×h), then L₂₁ = −L₂₂⁻¹X. The zero upper triangles of
	// L₁₁⁻¹ and L₂₂⁻¹ enter the products as zeros.
	x := tmp[:m*h]
	clear(x)
	gemm(m, h, h, 1, view{l21, ld, false}, view{l, ld, false}, x, h)
	for i := range m {
		clear(l21[i*ld : i*ld+h])
	}
	gemm(m, h, m, -1, view{l22, ld, false}, view{x, h, false}, l21, ld)
}

// invLowerRows overwrites the lower-triangular n×n block at l (leading
// dimension ld, upper triangle zero) with its inverse, row by row: row i
// of L⁻¹ is −(Σ_{p<i} L[i,p]·(L⁻¹)[p,:]) / L[i,i], and
// (L⁻¹)[i,i] = 1/L[i,i].
func invLowerRows(l []float64, ld, n int) {
	var row [trsmBlock]float64
	for i := range n {
		r := row[:i]
		clear(r)
		li := l[i*ld : i*ld+i]
		for p, lip := range li {
			xp := l[p*ld : p*ld+p+1]
			rp := r[:p+1]
			for j, v := range xp {
				rp[j] += lip * v
			}
		}
		d := 1 / l[i*ld+i]
		for j, v := range r {
			l[i*ld+j] = -v * d
		}
		l[i*ld+i] = d
	}
}
