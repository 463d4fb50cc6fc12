package gp

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/kml-lang/kml/runtime/linalg"
)

// symPool recycles the n×n buffers of LogMarginal: an optimiser evaluates it
// hundreds of times at one n, and a fresh n×n matrix per call costs page
// faults and garbage collection.
var symPool sync.Pool

func getSym(n int) *[]float64 {
	if p, ok := symPool.Get().(*[]float64); ok && cap(*p) >= n*n {
		*p = (*p)[:n*n]
		return p
	}
	s := make([]float64, n*n)
	return &s
}

// factorUpper factors the symmetric matrix whose upper triangle fill writes
// into a (row-major, stride n) in place, as UᵀU, with the jitter schedule of
// linalg.CholeskyJitter when it is not numerically positive definite. It
// does not use mat.Cholesky.Factorize, which also estimates the condition
// number at half the cost of the factor at n = 442.
func factorUpper(a []float64, n int, fill func()) (blas64.Triangular, error) {
	sym := blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: a}
	fill()
	if !finiteUpper(a, n) {
		return blas64.Triangular{}, ErrNonFinite
	}
	var mean float64
	for i := 0; i < n; i++ {
		mean += a[i*n+i]
	}
	mean /= float64(n)
	if t, ok := potrf(sym); ok && finiteDiag(t) {
		return t, nil
	}
	for jit := range linalg.Jitters(mean) {
		fill()
		for i := 0; i < n; i++ {
			a[i*n+i] += jit
		}
		if t, ok := potrf(sym); ok && finiteDiag(t) {
			return t, nil
		}
	}
	return blas64.Triangular{}, ErrNotPD
}

func finiteUpper(a []float64, n int) bool {
	for i := 0; i < n; i++ {
		for _, v := range a[i*n+i : (i+1)*n] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// finiteDiag reports a factor with a finite, non-zero log determinant.
func finiteDiag(t blas64.Triangular) bool {
	ld := logDetUpper(t)
	return !math.IsNaN(ld) && !math.IsInf(ld, 0)
}

// logDetUpper is log|UᵀU| = 2 Σ log Uᵢᵢ.
func logDetUpper(t blas64.Triangular) float64 {
	var s float64
	for i := 0; i < t.N; i++ {
		s += math.Log(t.Data[i*t.Stride+i])
	}
	return 2 * s
}
