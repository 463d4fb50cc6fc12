package bke

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Jitter: when a covariance matrix is not numerically positive definite,
// jitterStart × (its mean diagonal) is added to the diagonal, and the
// addition is multiplied by 10 until the Cholesky factorisation succeeds or
// the addition would exceed jitterMax × the mean diagonal.
const (
	jitterStart = 1e-10
	jitterMax   = 1e-4
)

// factorJitter returns the Cholesky factor of a + jitter·I with the smallest
// jitter of the sequence above that works (0 when a itself is positive
// definite). a is not modified. what names the matrix in the error.
func factorJitter(a *mat.SymDense, what string) (*mat.Cholesky, float64, error) {
	var chol mat.Cholesky
	if chol.Factorize(a) {
		return &chol, 0, nil
	}
	n := a.SymmetricDim()
	var mean float64
	for i := 0; i < n; i++ {
		mean += a.At(i, i)
	}
	mean /= float64(n)
	if mean > 0 {
		b := mat.NewSymDense(n, nil)
		for jit := jitterStart * mean; jit <= jitterMax*mean*(1+1e-9); jit *= 10 {
			b.CopySym(a)
			for i := 0; i < n; i++ {
				b.SetSym(i, i, b.At(i, i)+jit)
			}
			if chol.Factorize(b) {
				return &chol, jit, nil
			}
		}
	}
	return nil, 0, fmt.Errorf("bke: %s is not positive definite even with %g × its mean diagonal added: are landmarks duplicated, or is the lengthscale very large for this noise?", what, jitterMax)
}
