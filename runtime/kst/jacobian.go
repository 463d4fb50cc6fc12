package kst

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// ShiftInvariant reports whether k(x, y) depends on x − y alone, so that the
// Jacobian factor of eq. (6) is a constant: the stationary and periodic
// kernels, white noise, the constant kernel, and their sums, products and
// scalings. Any other kernel (linear, poly, an unknown implementation) is
// treated as not shift-invariant and gets the factor computed.
func ShiftInvariant(k kernels.Kernel) bool {
	switch k := k.(type) {
	case *kernels.Stationary, *kernels.Periodic, kernels.White, kernels.Constant:
		return true
	case *kernels.Sum:
		return ShiftInvariant(k.A) && ShiftInvariant(k.B)
	case *kernels.Product:
		return ShiftInvariant(k.A) && ShiftInvariant(k.B)
	case *kernels.Scaled:
		return ShiftInvariant(k.K)
	}
	return false
}

// FeatureMetric returns G(x), G_ij = ⟨∂φ/∂x_i, ∂φ/∂x_j⟩ = ∂²k(x,y)/∂x_i∂y_j
// at y = x, by central differences in y of the input gradient ∂k/∂x
// (Kernel.GradX). The step is 1e-4·max(1, |x_j|): the error is of order
// step² (exact for kernels quadratic in y, such as linear and poly(2)).
func FeatureMetric(k kernels.Kernel, x []float64) *mat.SymDense {
	d := len(x)
	g := mat.NewSymDense(d, nil)
	y := append([]float64(nil), x...)
	gp := make([]float64, d)
	gm := make([]float64, d)
	full := make([]float64, d*d) // full[i*d+j] = ∂²k/∂x_i∂y_j
	for j := 0; j < d; j++ {
		h := 1e-4 * max(1, math.Abs(x[j]))
		y[j] = x[j] + h
		k.GradX(gp, x, y)
		y[j] = x[j] - h
		k.GradX(gm, x, y)
		y[j] = x[j]
		for i := 0; i < d; i++ {
			full[i*d+j] = (gp[i] - gm[i]) / (2 * h)
		}
	}
	// The exact matrix is symmetric; average the two finite-difference halves.
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			g.SetSym(i, j, (full[i*d+j]+full[j*d+i])/2)
		}
	}
	return g
}

// LogJacobian is ½ log det G(x), the log of the Jacobian factor of eq. (6);
// −Inf where G is singular (the feature map is not immersive there).
func LogJacobian(k kernels.Kernel, x []float64) float64 {
	g := FeatureMetric(k, x)
	var ch mat.Cholesky
	if !ch.Factorize(g) {
		return math.Inf(-1)
	}
	return ch.LogDet() / 2
}
