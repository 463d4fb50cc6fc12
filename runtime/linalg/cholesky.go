package linalg

import (
	"iter"
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/blas3"
	"github.com/kml-lang/kml/runtime/internal/rawmem"
)

// Cholesky writes into l the lower-triangular factor L, LLᵀ = a, of the
// symmetric positive definite d×d row-major matrix a, of which it reads only
// the lower triangle, and sets l's strict upper triangle to zero. l may be a
// itself (the factorisation is then in place); it must have length d·d at
// least. It reports false, leaving l partly written, when a pivot is not
// positive, that is when a is not numerically positive definite. It does not
// allocate.
func Cholesky(l, a []float64, d int) bool {
	if d == 0 {
		return true
	}
	if &l[0] != &a[0] {
		copy(l[:d*d], a[:d*d])
	}
	for j := 0; j < d; j++ {
		s := l[j*d+j]
		for k := 0; k < j; k++ {
			s -= l[j*d+k] * l[j*d+k]
		}
		if !(s > 0) {
			return false
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			t := l[i*d+j]
			for k := 0; k < j; k++ {
				t -= l[i*d+k] * l[j*d+k]
			}
			l[i*d+j] = t / ljj
			l[j*d+i] = 0
		}
	}
	return true
}

// The jitter schedule of CholeskyJitter: JitterStart × the mean diagonal of
// the matrix is added to its diagonal, and the addition is multiplied by 10
// until the factorisation succeeds or it would exceed JitterMax × the mean
// diagonal.
const (
	JitterStart = 1e-10
	JitterMax   = 1e-4
)

// Jitters yields the schedule for a matrix whose mean diagonal is mean:
// JitterStart·mean, then ten times the last, while at most JitterMax·mean
// (with a relative allowance of 1e-9 for the rounding of the products).
// It yields nothing when mean is not positive. Every factorisation with
// jitter in KML takes its additions from here.
func Jitters(mean float64) iter.Seq[float64] {
	return func(yield func(float64) bool) {
		if !(mean > 0) {
			return
		}
		for jit := JitterStart * mean; jit <= JitterMax*mean*(1+1e-9); jit *= 10 {
			if !yield(jit) {
				return
			}
		}
	}
}

// CholeskyJitter factors a + jitter·I into dst with the smallest jitter of
// the schedule above that works, and returns that jitter. Unless always is
// set it first tries a itself (jitter 0); with always, as for a Nyström
// approximation's regularised landmark Gram matrix, it starts at
// JitterStart × the mean diagonal. a is not modified. ok is false when no
// jitter of the schedule works, or when the mean diagonal is not positive.
func CholeskyJitter(dst *mat.Cholesky, a *mat.SymDense, always bool) (jitter float64, ok bool) {
	if !always && dst.Factorize(a) {
		return 0, true
	}
	n := a.SymmetricDim()
	var mean float64
	for i := 0; i < n; i++ {
		mean += a.At(i, i)
	}
	mean /= float64(n)
	if !(mean > 0) {
		return 0, false
	}
	b := mat.NewSymDense(n, nil)
	for jit := range Jitters(mean) {
		b.CopySym(a)
		for i := 0; i < n; i++ {
			b.SetSym(i, i, b.At(i, i)+jit)
		}
		if dst.Factorize(b) {
			return jit, true
		}
	}
	return 0, false
}

// CholLowerFrom factors the n×n symmetric positive definite matrix whose
// lower triangle is a's as A = L·Lᵀ and returns L as a new row-major n×n
// buffer (stride n) with its strict upper triangle zero. a is not written
// and only its lower triangle is read, once, by the factorisation's own
// first steps (blas3.PotrfLowerFrom), which also write the zeros; so the
// buffer is never cleared first (rawmem) and factoring a user's matrix
// costs no pass over memory of its own: at n = 2000 the copy pass was a
// read and a write of 16 MB and make's clearing a write of 32 MB, on one
// core. It reports false, with no buffer, when the matrix is not positive
// definite or has a NaN or an infinity in its lower triangle.
func CholLowerFrom(a blas64.General) ([]float64, bool) {
	n := a.Rows
	if a.Cols != n {
		panic("linalg: CholLowerFrom needs a square matrix")
	}
	l := rawmem.Float64s(n * n)
	if !blas3.PotrfLowerFrom(n, l, n, a.Data, a.Stride) {
		return nil, false
	}
	return l, true
}
