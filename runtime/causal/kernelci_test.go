package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/ktest"
)

// nonlinear draws n rows of x, y and z with x = sin(2z) + e₁, y = z² − 1 +
// e₂ (x ⟂ y | z) when dependent is false; else y gets tanh(2x) added, so
// x and y stay dependent given z. The noise is
// uniform on (−0.5, 0.5) (non-Gaussian) and z is N(0, 1).
func nonlinear(r *rand.Rand, n int, dependent bool) (x, y, z *mat.Dense) {
	x, y, z = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		zv := r.NormFloat64()
		xv := math.Sin(2*zv) + r.Float64() - 0.5
		yv := zv*zv - 1 + r.Float64() - 0.5
		if dependent {
			yv += math.Tanh(2 * xv)
		}
		x.Set(i, 0, xv)
		y.Set(i, 0, yv)
		z.Set(i, 0, zv)
	}
	return x, y, z
}

// The type-I error of the GP-residual HSIC test under conditional
// independence is within 3 SE of α (α = 0.1, 120 seeded replications of
// n = 60, median heuristic, gamma null: SE = √(0.1·0.9/120) ≈ 0.027); and
// under the dependence it rejects in most replications.
func TestKernelCILevelAndPower(t *testing.T) {
	test := KernelTest{KX: KernelSpec{Choice: ktest.ChoiceMedian}, KY: KernelSpec{Choice: ktest.ChoiceMedian},
		Method: ktest.Gamma, Settings: ktest.Settings{Workers: 1}}
	const reps, alpha = 120, 0.1
	rate := func(dependent bool) float64 {
		rej := 0
		for rep := 0; rep < reps; rep++ {
			r := rand.New(rand.NewPCG(uint64(rep), 0x6369))
			x, y, z := nonlinear(r, 60, dependent)
			res, err := test.Test(context.Background(), x, y, z, uint64(rep))
			if err != nil {
				t.Fatal(err)
			}
			if res.HSIC.PValue <= alpha {
				rej++
			}
			if len(res.RegX) != 1 || len(res.RegY) != 1 || res.X.Choice != ktest.ChoiceMedian {
				t.Fatalf("the result does not record the regressions and kernels: %+v", res)
			}
		}
		return float64(rej) / reps
	}
	se := math.Sqrt(alpha * (1 - alpha) / reps)
	level := rate(false)
	t.Logf("type-I error %.3f (α = %g, SE %.3f)", level, alpha, se)
	if math.Abs(level-alpha) > 3*se {
		t.Errorf("type-I error %.3f, want within 3 SE (%.3f) of %g", level, 3*se, alpha)
	}
	power := rate(true)
	t.Logf("power %.3f", power)
	if power < 0.7 {
		t.Errorf("power %.3f under the dependence", power)
	}
}

// x = z + e₁ and y = z + e₂ are dependent, and independent given z: the
// test without the conditioning set rejects, with it does not.
func TestKernelCIMarginalDependence(t *testing.T) {
	test := KernelTest{KX: KernelSpec{Choice: ktest.ChoiceBKL}, KY: KernelSpec{Choice: ktest.ChoiceBKL},
		Method: ktest.Permutation, Settings: ktest.Settings{Workers: 1, Permutations: 200}}
	r := rand.New(rand.NewPCG(1, 0x6369))
	n := 100
	x, y, z := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		zv := r.NormFloat64()
		z.Set(i, 0, zv)
		x.Set(i, 0, zv+0.3*r.NormFloat64())
		y.Set(i, 0, zv+0.3*r.NormFloat64())
	}
	res, err := test.Test(context.Background(), x, y, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.HSIC.PValue > 0.01 || res.RegX != nil || res.X.Choice != ktest.ChoiceBKL {
		t.Errorf("x and y are dependent: p = %g", res.HSIC.PValue)
	}
	res, err = test.Test(context.Background(), x, y, z, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.HSIC.PValue < 0.05 {
		t.Errorf("x ⟂ y | z: p = %g", res.HSIC.PValue)
	}
}
