package gp

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestDists: NonGaussian with the inputs' squared distances kept
// (Settings.Dists: the kernel matrix and the gradient's contraction by
// fastKernel's blocks, isotropic terms from the distances) gives the log
// marginal and gradient of the path without them (kernels.GramInto and
// sqdist on scaled coordinates) to 10⁻¹⁰ relative, for an isotropic rbf,
// and for an isotropic Matérn 3/2 plus an ARD rbf (whose distances are
// still computed); keeps one matrix across calls and recomputes it when
// the inputs' numbers change in place.
func TestDists(t *testing.T) {
	l := Lik{Kind: Logit}
	_, x, y := smallProblem(t, 50, l)
	rbf, _ := kernels.NewRBF([]float64{0.9})
	iso, _ := kernels.NewScaled(3, rbf)
	m32, _ := kernels.NewMatern(3, []float64{1.3})
	ard, _ := kernels.NewRBF([]float64{0.7, 1.6})
	a1, _ := kernels.NewScaled(2, m32)
	a2, _ := kernels.NewScaled(0.5, ard)
	sum, _ := kernels.NewSum(a1, a2)
	ds := &Dists{}
	for _, k := range []kernels.Kernel{iso, sum} {
		g0, g1 := make([]float64, k.NumHyper()), make([]float64, k.NumHyper())
		v0, err := NonGaussian(Settings{Kind: MLM, Approx: LaplaceApprox{}}, k, x, y, l, g0)
		if err != nil {
			t.Fatal(err)
		}
		v1, err := NonGaussian(Settings{Kind: MLM, Approx: LaplaceApprox{}, Dists: ds}, k, x, y, l, g1)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(v1 - v0); !(d <= 1e-10*math.Abs(v0)) {
			t.Errorf("%s: log q %.15g with the distances kept, %.15g without", k, v1, v0)
		}
		for i := range g0 {
			if d := math.Abs(g1[i] - g0[i]); !(d <= 1e-10*math.Max(1, math.Abs(g0[i]))) {
				t.Errorf("%s: gradient[%d] %.15g with the distances kept, %.15g without", k, i, g1[i], g0[i])
			}
		}
	}
	d1 := ds.of(x)
	if d2 := ds.of(x); &d2[0] != &d1[0] || d2[1] != d1[1] {
		t.Error("a second call for the same inputs recomputed the distances")
	}
	want := d1[1]
	x.Set(0, 0, x.At(0, 0)+1)
	got := ds.of(x)
	r0, r1 := x.RawRowView(0), x.RawRowView(1)
	direct := (r0[0]-r1[0])*(r0[0]-r1[0]) + (r0[1]-r1[1])*(r0[1]-r1[1])
	if got[1] == want || math.Abs(got[1]-direct) > 1e-12*direct {
		t.Errorf("after x changed in place: ‖x₀ − x₁‖² %.15g, was %.15g, direct %.15g", got[1], want, direct)
	}
}
