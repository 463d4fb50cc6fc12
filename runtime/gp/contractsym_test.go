package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestContractSymMatchesPairs checks ContractSym's matrix form against
// Contract (k.GradHyper per pair) for the kernels SGPR's matrix form
// takes and the laplacian, with a random symmetric W, in blocks of 7
// rows (several per lane) and in whole lanes, to 1e-10 relative to the
// largest derivative; and that a kernel without a matrix form (rational
// quadratic) gives Contract's numbers exactly.
func TestContractSymMatchesPairs(t *testing.T) {
	defer func(f int) { contractSymFloats = f }(contractSymFloats)
	const n = 150
	x, _ := testData(n, 3, 391)
	rng := rand.New(rand.NewPCG(39, 391))
	w := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			w.SetSym(i, j, rng.NormFloat64())
		}
	}
	ks := fastKernels(t)
	lap, _ := kernels.NewLaplacian([]float64{1.3, 0.6, 2.2})
	ks["laplacian ARD"] = lap
	for _, floats := range []int{7 * n, 1 << 16} {
		contractSymFloats = floats
		for name, k := range ks {
			if newFastKernel(k, x, x) == nil {
				t.Fatalf("%s: no matrix form", name)
			}
			nh := k.NumHyper()
			got, want := make([]float64, nh), make([]float64, nh)
			ContractSym(got, k, x, w)
			Contract(want, k, x, w)
			scale := 0.0
			for _, v := range want {
				scale = math.Max(scale, math.Abs(v))
			}
			for h := range want {
				if math.Abs(got[h]-want[h]) > 1e-10*scale {
					t.Errorf("%s, blocks of %d rows: ∂/∂h%d %.15g, per pair %.15g", name, floats/n, h, got[h], want[h])
				}
			}
		}
	}
	rq, _ := kernels.NewRQ([]float64{1.1}, 2)
	got, want := make([]float64, rq.NumHyper()), make([]float64, rq.NumHyper())
	ContractSym(got, rq, x, w)
	Contract(want, rq, x, w)
	for h := range want {
		if got[h] != want[h] {
			t.Errorf("rq: ∂/∂h%d %g, Contract %g", h, got[h], want[h])
		}
	}
}

// TestLaplaceGradientsMatrixForm checks Laplace's gradient through
// ContractSym's matrix form (examples/gp_classify.kml's a·rbf(ℓ), and an
// ARD rbf) against central differences of the objective on a logistic
// problem.
func TestLaplaceGradientsMatrixForm(t *testing.T) {
	_, x, y := smallProblem(t, 30, Lik{Kind: Logit})
	rbf, _ := kernels.NewRBF([]float64{0.8})
	iso, _ := kernels.NewScaled(2.5, rbf)
	ard, _ := kernels.NewRBF([]float64{0.7, 1.9})
	for name, k := range map[string]kernels.Kernel{"a·rbf(ℓ)": iso, "rbf ARD": ard} {
		if newFastKernel(k, x, x) == nil {
			t.Fatalf("%s: no matrix form", name)
		}
		gradCheck(t, name, Settings{Approx: LaplaceApprox{}}, k, x, y, Lik{Kind: Logit}, 1e-3, 1e-6, true)
	}
}
