package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// gradCheck compares NonGaussian's gradient under s (kernel
// hyperparameters, then the likelihood's parameters) with finite
// differences of its value, inner loop included: central differences with
// step eps, or, with richardson, Richardson's extrapolation of the central
// differences with steps eps and eps/2. A component fails when it differs
// from the difference by more than tol·(1 + |difference|). label names the
// case in the error.
func gradCheck(t *testing.T, label string, s Settings, k kernels.Kernel, x *mat.Dense, y []float64, lik Lik, eps, tol float64, richardson bool) {
	t.Helper()
	nh := k.NumHyper()
	grad := make([]float64, nh+len(lik.Params))
	if _, err := NonGaussian(s, k, x, y, lik, grad); err != nil {
		t.Fatal(err)
	}
	h0 := k.Hyper(nil)
	names := append(k.HyperNames(), "lik.1", "lik.2")
	for i := range grad {
		f := func(delta float64) float64 {
			kk, l := k, Lik{Kind: lik.Kind, Params: append([]float64(nil), lik.Params...)}
			if i < nh {
				h := append([]float64(nil), h0...)
				h[i] += delta
				kk, _ = k.WithHyper(h)
			} else {
				l.Params[i-nh] += delta
			}
			v, err := NonGaussian(s, kk, x, y, l, nil)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		fd := (f(eps) - f(-eps)) / (2 * eps)
		if richardson {
			fd = (4*(f(eps/2)-f(-eps/2))/eps - fd) / 3
		}
		if math.Abs(fd-grad[i]) > tol*(1+math.Abs(fd)) {
			t.Errorf("%s: ∂/∂%s = %.8g, finite difference %.8g", label, names[i], grad[i], fd)
		}
	}
}

// noiseGradCheck compares grad, a Gaussian-noise objective's gradient in
// k's hyperparameters then the noise variance, with central differences
// (step 1e-5) of dense, an independent computation of the same objective
// at a kernel and a noise variance, to 1e-6·(1 + |difference|). label
// names the case in the error.
func noiseGradCheck(t *testing.T, label string, k kernels.Kernel, noise float64, grad []float64, dense func(kernels.Kernel, float64) float64) {
	t.Helper()
	h0 := k.Hyper(nil)
	names := append(k.HyperNames(), "noise")
	const eps = 1e-5
	for i := range grad {
		f := func(delta float64) float64 {
			if i == len(h0) {
				return dense(k, noise+delta)
			}
			h := append([]float64(nil), h0...)
			h[i] += delta
			kk, _ := k.WithHyper(h)
			return dense(kk, noise)
		}
		fd := (f(eps) - f(-eps)) / (2 * eps)
		if math.Abs(fd-grad[i]) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("%s: ∂/∂%s = %.10g, finite difference %.10g", label, names[i], grad[i], fd)
		}
	}
}
