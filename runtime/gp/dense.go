package gp

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// Products of the latent-GP approximations (Laplace, EP) on full dense
// storage. gonum multiplies two SymDense matrices element by element
// through At and sends a dense × symmetric product to its pure-Go Dsymm;
// copied to full row-major storage, the same products are DGEMMs, which
// KML's blas3 package runs on its packed kernels.

// fullSym returns both triangles of the symmetric s in row-major n×n
// storage.
func fullSym(s *mat.SymDense) []float64 {
	return fullSymTo(make([]float64, s.SymmetricDim()*s.SymmetricDim()), s)
}

// fullSymTo is fullSym into d, of n·n.
func fullSymTo(d []float64, s *mat.SymDense) []float64 {
	raw := s.RawSymmetric()
	n := raw.N
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := i; j < n; j++ {
			d[i*n+j] = row[j]
			d[j*n+i] = row[j]
		}
	}
	return d
}

// gemm returns the n×n product a·b of row-major n×n matrices.
func gemm(n int, a, b []float64) []float64 {
	return gemmTo(make([]float64, n*n), n, a, b)
}

// gemmTo is gemm into c, of n·n.
func gemmTo(c []float64, n int, a, b []float64) []float64 {
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas64.General{Rows: n, Cols: n, Stride: n, Data: a},
		blas64.General{Rows: n, Cols: n, Stride: n, Data: b},
		0, blas64.General{Rows: n, Cols: n, Stride: n, Data: c})
	return c
}

// diagSandwich returns diag(K·R·K) for symmetric K and R by one DGEMM,
// K·R, and a dot product per row: (KRK)ᵢᵢ = Σⱼ (KR)ᵢⱼ Kⱼᵢ = (KR)ᵢ·Kᵢ.
func diagSandwich(K, R *mat.SymDense) []float64 {
	return diagSandwichFull(K.SymmetricDim(), fullSym(K), fullSym(R))
}

// diagSandwichFull is diagSandwich on full row-major storage (fullSym).
func diagSandwichFull(n int, kf, rf []float64) []float64 {
	kr := gemmTo(square(n), n, kf, rf)
	d := make([]float64, n)
	for i := range d {
		d[i] = linalg.Dot(kr[i*n:(i+1)*n], kf[i*n:(i+1)*n])
	}
	release(kr)
	return d
}

// sandwich returns K·R·K (full, row-major) for symmetric K and R by two
// DGEMMs.
func sandwich(K, R *mat.SymDense) []float64 {
	n := K.SymmetricDim()
	kf := fullSym(K)
	return gemm(n, gemm(n, kf, fullSym(R)), kf)
}

// mulSym returns a·s for a general m×n a and a symmetric n×n s by one
// DGEMM on s's full storage (gonum's Dense·SymDense product is its pure-Go
// Dsymm).
func mulSym(a *mat.Dense, s *mat.SymDense) *mat.Dense {
	m, n := a.Dims()
	ar := a.RawMatrix()
	c := mat.NewDense(m, n, nil)
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, ar,
		blas64.General{Rows: n, Cols: n, Stride: n, Data: fullSym(s)},
		0, c.RawMatrix())
	return c
}

// symVec sets dst = S·x for a symmetric n×n S in full row-major storage
// (fullSym) by one DGEMV: gonum's Dsymv on a SymDense walks a triangle
// with strided accesses and took 110 µs at n = 207 against DGEMV's 18 µs
// (load 15), three times per Newton step of Laplace's mode.
func symVec(dst, s, x []float64) {
	n := len(x)
	blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: s},
		blas64.Vector{N: n, Inc: 1, Data: x}, 0, blas64.Vector{N: n, Inc: 1, Data: dst})
}
