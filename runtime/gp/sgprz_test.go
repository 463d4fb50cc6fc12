package gp

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// checkSGPRGradZ compares SGPRLogMarginalZ's ∂F/∂z with central
// differences of the dense bound (denseSGPR) in every coordinate of every
// inducing point, and checks that asking for it changes neither the bound
// nor the gradient in the hyperparameters. It returns ∂F/∂z.
func checkSGPRGradZ(t *testing.T, name string, k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) []float64 {
	t.Helper()
	m, d := z.Dims()
	grad := make([]float64, k.NumHyper()+1)
	gz := make([]float64, m*d)
	f, err := SGPRLogMarginalZ(k, x, z, y, noise, grad, gz)
	if err != nil {
		t.Fatal(name, err)
	}
	grad0 := make([]float64, len(grad))
	f0, err := SGPRLogMarginal(k, x, z, y, noise, grad0)
	if err != nil || f0 != f || !slices.Equal(grad0, grad) {
		t.Errorf("%s: with ∂F/∂z the bound is %.17g and ∂F/∂θ %v; without, %.17g and %v (%v)", name, f, grad, f0, grad0, err)
	}
	const eps = 1e-5
	for j := 0; j < m; j++ {
		for q := 0; q < d; q++ {
			at := func(delta float64) float64 {
				zz := mat.DenseCopyOf(z)
				zz.Set(j, q, z.At(j, q)+delta)
				return denseSGPR(k, x, zz, y, noise)
			}
			fd := (at(eps) - at(-eps)) / (2 * eps)
			if got := gz[j*d+q]; math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%s: ∂F/∂z[%d, %d] = %.10g, finite difference %.10g", name, j+1, q+1, got, fd)
			}
		}
	}
	return gz
}

// TestSGPRGradZ checks the bound's gradient in its inducing points on the
// general path (rbf + linear, one kernel derivative per pair, blocks of
// 37 rows) and on the matrix form (every kernel of fastKernels, blocks of
// 37 rows in the 8 lanes), against central differences of the dense
// bound, and the two paths against each other to 1e-10.
func TestSGPRGradZ(t *testing.T) {
	defer func(b, fb int) { sgprBlock, sgprFastBlock = b, fb }(sgprBlock, sgprFastBlock)
	sgprBlock, sgprFastBlock = 37, 37
	x, y := testData(200, 2, 611)
	z, _ := testData(8, 2, 612)
	checkSGPRGradZ(t, "rbf + linear", sgprKernel(), x, z, y, 0.2)

	x, y = testData(300, 3, 613)
	z, _ = testData(10, 3, 614)
	for name, k := range fastKernels(t) {
		if newFastKernel(k, x, z) == nil {
			t.Fatalf("%s: no matrix form", name)
		}
		fast := checkSGPRGradZ(t, name, k, x, z, y, 0.15)
		sgprFastPath = false
		gen := make([]float64, len(fast))
		_, err := SGPRLogMarginalZ(k, x, z, y, 0.15, make([]float64, k.NumHyper()+1), gen)
		sgprFastPath = true
		if err != nil {
			t.Fatal(name, err)
		}
		scale := 0.0
		for _, v := range gen {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range fast {
			if math.Abs(fast[i]-gen[i]) > 1e-10*scale {
				t.Errorf("%s: ∂F/∂z entry %d = %.15g, general path %.15g", name, i, fast[i], gen[i])
			}
		}
	}
}
