package gp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgo "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// invLeaf is the block size below which the recursions call gonum's
// unblocked-style routines directly.
const invLeaf = 64

// potri overwrites the upper Cholesky factor U of C = UᵀU (row-major,
// upper triangle) with the upper triangle of C⁻¹ = U⁻¹U⁻ᵀ, as LAPACK's potri
// does, but by recursive blocking that puts almost all of the work in
// matrix products: gonum's dtrtri and dlauum spend theirs in its serial
// dtrmm, which made the inverse cost four factorisations rather than two.
// It reports false when U has a zero on its diagonal.
func potri(t blas64.Triangular) bool {
	for i := 0; i < t.N; i++ {
		if t.Data[i*t.Stride+i] == 0 {
			return false
		}
	}
	trinv(t)
	lauum(t)
	return true
}

// sub is the r×c block of t's storage at (i, j).
func sub(t blas64.Triangular, i, j, r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: t.Stride, Data: t.Data[i*t.Stride+j:]}
}

// tri is the k×k upper triangle of t's storage at (i, i).
func tri(t blas64.Triangular, i, k int) blas64.Triangular {
	return blas64.Triangular{N: k, Stride: t.Stride, Uplo: blas.Upper, Diag: blas.NonUnit, Data: t.Data[i*t.Stride+i:]}
}

// trinv overwrites the upper triangular U with U⁻¹: for U = [A B; 0 C],
// U⁻¹ = [A⁻¹ −A⁻¹BC⁻¹; 0 C⁻¹].
func trinv(t blas64.Triangular) {
	n := t.N
	if n <= invLeaf {
		lapack64.Trtri(t)
		return
	}
	h := n / 2
	a, c := tri(t, 0, h), tri(t, h, n-h)
	b := sub(t, 0, h, h, n-h)
	trinv(c)
	trmmRight(b, c, false)
	trinv(a)
	trmmLeft(b, a)
	for i := 0; i < b.Rows; i++ {
		row := b.Data[i*b.Stride : i*b.Stride+b.Cols]
		for j := range row {
			row[j] = -row[j]
		}
	}
}

// trmmRight sets b ← b·T, or b ← b·Tᵀ with trans, for the upper T.
func trmmRight(b blas64.General, t blas64.Triangular, trans bool) {
	k := t.N
	tr := blas.NoTrans
	if trans {
		tr = blas.Trans
	}
	if k <= invLeaf {
		blas64.Trmm(blas.Right, tr, 1, t, b)
		return
	}
	h := k / 2
	p, r := tri(t, 0, h), tri(t, h, k-h)
	q := sub(t, 0, h, h, k-h)
	b1 := blas64.General{Rows: b.Rows, Cols: h, Stride: b.Stride, Data: b.Data}
	b2 := blas64.General{Rows: b.Rows, Cols: k - h, Stride: b.Stride, Data: b.Data[h:]}
	if !trans {
		// [b1 b2]·[P Q; 0 R] = [b1P, b1Q + b2R].
		trmmRight(b2, r, false)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, b1, q, 1, b2)
		trmmRight(b1, p, false)
		return
	}
	// [b1 b2]·[Pᵀ 0; Qᵀ Rᵀ] = [b1Pᵀ + b2Qᵀ, b2Rᵀ].
	trmmRight(b1, p, true)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, b2, q, 1, b1)
	trmmRight(b2, r, true)
}

// trmmLeft sets b ← T·b for the upper T.
func trmmLeft(b blas64.General, t blas64.Triangular) {
	k := t.N
	if k <= invLeaf {
		blas64.Trmm(blas.Left, blas.NoTrans, 1, t, b)
		return
	}
	h := k / 2
	p, r := tri(t, 0, h), tri(t, h, k-h)
	q := sub(t, 0, h, h, k-h)
	b1 := blas64.General{Rows: h, Cols: b.Cols, Stride: b.Stride, Data: b.Data}
	b2 := blas64.General{Rows: k - h, Cols: b.Cols, Stride: b.Stride, Data: b.Data[h*b.Stride:]}
	// [P Q; 0 R]·[b1; b2] = [Pb1 + Qb2; Rb2].
	trmmLeft(b1, p)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, q, b2, 1, b1)
	trmmLeft(b2, r)
}

// lauum overwrites the upper triangular V with the upper triangle of VVᵀ:
// for V = [A B; 0 C], VVᵀ = [AAᵀ + BBᵀ, BCᵀ; ·, CCᵀ].
func lauum(t blas64.Triangular) {
	n := t.N
	if n <= invLeaf {
		lapackgo.Implementation{}.Dlauum(blas.Upper, n, t.Data, t.Stride)
		return
	}
	h := n / 2
	a, c := tri(t, 0, h), tri(t, h, n-h)
	b := sub(t, 0, h, h, n-h)
	lauum(a)
	syrkUpper(blas64.Symmetric{N: h, Stride: t.Stride, Uplo: blas.Upper, Data: t.Data}, b)
	trmmRight(b, c, true)
	lauum(c)
}

// syrkUpper adds b·bᵀ to the upper triangle of s, with the off-diagonal
// blocks as matrix products.
func syrkUpper(s blas64.Symmetric, b blas64.General) {
	n := s.N
	if n <= invLeaf {
		blas64.Syrk(blas.NoTrans, 1, b, 1, s)
		return
	}
	h := n / 2
	b1 := blas64.General{Rows: h, Cols: b.Cols, Stride: b.Stride, Data: b.Data}
	b2 := blas64.General{Rows: n - h, Cols: b.Cols, Stride: b.Stride, Data: b.Data[h*b.Stride:]}
	syrkUpper(blas64.Symmetric{N: h, Stride: s.Stride, Uplo: blas.Upper, Data: s.Data}, b1)
	off := blas64.General{Rows: h, Cols: n - h, Stride: s.Stride, Data: s.Data[h:]}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, b1, b2, 1, off)
	syrkUpper(blas64.Symmetric{N: n - h, Stride: s.Stride, Uplo: blas.Upper, Data: s.Data[h*s.Stride+h:]}, b2)
}
