package gp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// potrf factors the symmetric positive definite s (upper triangle,
// row-major) in place as UᵀU, like LAPACK's potrf, by recursive blocking:
// for s = [A B; Bᵀ D], U = [U₁ U₁⁻ᵀB; 0 chol(D − BᵀU₁⁻¹U₁⁻ᵀB)]. Nearly all
// the work is then matrix products, which gonum runs on every core, where
// its own dpotrf spends much of it in serial dsyrk and dtrsm. It reports
// false when s is not numerically positive definite.
func potrf(s blas64.Symmetric) (blas64.Triangular, bool) {
	t := blas64.Triangular{N: s.N, Stride: s.Stride, Uplo: blas.Upper, Diag: blas.NonUnit, Data: s.Data}
	return t, chol(t)
}

func chol(t blas64.Triangular) bool {
	n := t.N
	if n <= invLeaf {
		_, ok := lapack64.Potrf(blas64.Symmetric{N: n, Stride: t.Stride, Uplo: blas.Upper, Data: t.Data})
		return ok
	}
	h := n / 2
	a, d := tri(t, 0, h), tri(t, h, n-h)
	b := sub(t, 0, h, h, n-h)
	if !chol(a) {
		return false
	}
	trsmLeftTrans(b, a)
	syrkTransDown(blas64.Symmetric{N: n - h, Stride: t.Stride, Uplo: blas.Upper, Data: d.Data}, b)
	return chol(d)
}

// solveUpper sets x ← (UᵀU)⁻¹x for the factor t = U of potrf, by two
// triangular solves with one vector (Dtrsv). LAPACK's Potrs with one
// right-hand side does the same through Dtrsm, whose column-at-a-time
// sweep over a row-major matrix took 15 ms of an 80 ms log marginal
// likelihood at n = 2000.
func solveUpper(t blas64.Triangular, x []float64) {
	v := blas64.Vector{N: t.N, Inc: 1, Data: x}
	blas64.Trsv(blas.Trans, t, v)
	blas64.Trsv(blas.NoTrans, t, v)
}

// trsmLeftTrans sets b ← T⁻ᵀb for the upper T: for T = [P Q; 0 R],
// Tᵀx = b is Pᵀx₁ = b₁, Rᵀx₂ = b₂ − Qᵀx₁.
func trsmLeftTrans(b blas64.General, t blas64.Triangular) {
	k := t.N
	if k <= invLeaf {
		blas64.Trsm(blas.Left, blas.Trans, 1, t, b)
		return
	}
	h := k / 2
	p, r := tri(t, 0, h), tri(t, h, k-h)
	q := sub(t, 0, h, h, k-h)
	b1 := blas64.General{Rows: h, Cols: b.Cols, Stride: b.Stride, Data: b.Data}
	b2 := blas64.General{Rows: k - h, Cols: b.Cols, Stride: b.Stride, Data: b.Data[h*b.Stride:]}
	trsmLeftTrans(b1, p)
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, q, b1, 1, b2)
	trsmLeftTrans(b2, r)
}

// syrkTransDown subtracts bᵀb from the upper triangle of s.
func syrkTransDown(s blas64.Symmetric, b blas64.General) {
	n := s.N
	if n <= invLeaf {
		blas64.Syrk(blas.Trans, -1, b, 1, s)
		return
	}
	h := n / 2
	b1 := blas64.General{Rows: b.Rows, Cols: h, Stride: b.Stride, Data: b.Data}
	b2 := blas64.General{Rows: b.Rows, Cols: n - h, Stride: b.Stride, Data: b.Data[h:]}
	syrkTransDown(blas64.Symmetric{N: h, Stride: s.Stride, Uplo: blas.Upper, Data: s.Data}, b1)
	off := blas64.General{Rows: h, Cols: n - h, Stride: s.Stride, Data: s.Data[h:]}
	blas64.Gemm(blas.Trans, blas.NoTrans, -1, b1, b2, 1, off)
	syrkTransDown(blas64.Symmetric{N: n - h, Stride: s.Stride, Uplo: blas.Upper, Data: s.Data[h*s.Stride+h:]}, b2)
}
