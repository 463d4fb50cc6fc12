package bke

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// factorJitter returns the Cholesky factor of a + jitter·I with the smallest
// jitter of linalg's schedule that works (0 when a itself is positive
// definite). a is not modified. what names the matrix in the error.
func factorJitter(a *mat.SymDense, what string) (*mat.Cholesky, float64, error) {
	var chol mat.Cholesky
	jit, ok := linalg.CholeskyJitter(&chol, a, false)
	if !ok {
		return nil, 0, fmt.Errorf("bke: %s is not positive definite even with %g × its mean diagonal added: are landmarks duplicated, or is the lengthscale very large for this noise?", what, linalg.JitterMax)
	}
	return &chol, jit, nil
}
