package blas3

import (
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

// trmm is Dtrmm in blocks of trsmBlock: each block row (Left) or column
// (Right) of B is replaced by the product of the diagonal block of op(A),
// copied dense, with its old value, plus one DGEMM with the part of B not
// yet overwritten, which is why the blocks run in the order they do.
func trmm(left, upper, trans, unit bool, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if alpha == 0 {
		scale(0, m, n, b, ldb)
		return
	}
	op := view{a, lda, trans}
	bv := view{b, ldb, false}
	lower := upper == trans // op(A) is lower triangular
	k := m
	if !left {
		k = n
	}
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	// Left: row block i of op(A)·B needs rows j ≥ i of B (upper) or j ≤ i
	// (lower); Right: column block j of B·op(A) needs columns i ≤ j (upper)
	// or i ≥ j (lower). Ascending order leaves the rows after i intact.
	ascending := lower != left
	for blk := 0; blk < k; blk += trsmBlock {
		if interrupt.Raised() {
			return // the exported routine panics
		}
		i0 := blk
		if !ascending {
			i0 = max(k-blk-trsmBlock, 0)
		}
		i1 := min(i0+trsmBlock, k)
		if !ascending {
			i1 = k - blk
		}
		nb := i1 - i0
		dense := grow(buf.a, nb*nb)
		buf.a = dense
		dv := op.sub(i0, i0)
		for i := range nb {
			for j := range nb {
				v := 0.0
				switch {
				case i == j && unit:
					v = 1
				case i == j || (j > i) != lower:
					v = dv.at(i, j)
				}
				dense[i*nb+j] = v
			}
		}
		// The part of B that has not been overwritten: [i1, k) ascending,
		// [0, i0) descending.
		s0, s1 := i1, k
		if !ascending {
			s0, s1 = 0, i0
		}
		if left {
			x := grow(buf.b, nb*n)
			buf.b = x
			for i := range nb {
				row := b[(i0+i)*ldb : (i0+i)*ldb+n]
				copy(x[i*n:(i+1)*n], row)
				clear(row)
			}
			gemm(nb, n, nb, alpha, view{dense, nb, false}, view{x, n, false}, b[i0*ldb:], ldb)
			if s1 > s0 {
				gemm(nb, n, s1-s0, alpha, op.sub(i0, s0), bv.sub(s0, 0), b[i0*ldb:], ldb)
			}
			continue
		}
		x := grow(buf.b, m*nb)
		buf.b = x
		for i := range m {
			row := b[i*ldb+i0 : i*ldb+i1]
			copy(x[i*nb:(i+1)*nb], row)
			clear(row)
		}
		gemm(m, nb, nb, alpha, view{x, nb, false}, view{dense, nb, false}, b[i0:], ldb)
		if s1 > s0 {
			gemm(m, nb, s1-s0, alpha, bv.sub(0, s0), op.sub(s0, i0), b[i0:], ldb)
		}
	}
}
