package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestFITCFastMatchesGeneral checks FITC's matrix form — the value, the
// gradient in every hyperparameter and the noise variance, and the
// predictive — against the general path (k.Eval and k.GradHyper per
// pair, which TestFITCMatchesDenseAndGradient and TestFITCPredict check
// against dense formulas and finite differences) for every kernel of
// fastKernels, on data cut into blocks of 29 rows in the 8 lanes, to
// 1e-10; and the value and gradient of one kernel against central
// differences of the dense FITC marginal.
func TestFITCFastMatchesGeneral(t *testing.T) {
	defer func(b int) { sgprFastBlock = b }(sgprFastBlock)
	sgprFastBlock = 29
	x, y := testData(350, 3, 4711)
	z, _ := testData(20, 3, 4712)
	xs, _ := testData(40, 3, 4713)
	noise := 0.12
	for name, k := range fastKernels(t) {
		if newFastKernel(k, x, z) == nil {
			t.Fatalf("%s: no matrix form", name)
		}
		gf := make([]float64, k.NumHyper()+1)
		gg := make([]float64, k.NumHyper()+1)
		fast, err := FITCLogMarginal(k, x, z, y, noise, gf)
		if err != nil {
			t.Fatal(name, err)
		}
		fm, fv, err := FITCPredict(k, x, z, y, noise, xs)
		if err != nil {
			t.Fatal(name, err)
		}
		sgprFastPath = false
		gen, err := FITCLogMarginal(k, x, z, y, noise, gg)
		gm, gv, perr := FITCPredict(k, x, z, y, noise, xs)
		sgprFastPath = true
		if err != nil || perr != nil {
			t.Fatal(name, err, perr)
		}
		if math.Abs(fast-gen) > 1e-10*math.Abs(gen) {
			t.Errorf("%s: FITC %.15g, general path %.15g", name, fast, gen)
		}
		scale := 0.0
		for _, v := range gg {
			scale = math.Max(scale, math.Abs(v))
		}
		names := append(k.HyperNames(), "noise")
		for i := range gf {
			if math.Abs(gf[i]-gg[i]) > 1e-10*scale {
				t.Errorf("%s: ∂/∂%s = %.15g, general path %.15g", name, names[i], gf[i], gg[i])
			}
		}
		for j := range fm {
			if math.Abs(fm[j]-gm[j]) > 1e-10*(1+math.Abs(gm[j])) || math.Abs(fv[j]-gv[j]) > 1e-10*(1+gv[j]) {
				t.Errorf("%s, point %d: mean %.15g var %.15g, general path %.15g %.15g", name, j, fm[j], fv[j], gm[j], gv[j])
			}
		}
		if v, err := FITCLogMarginal(k, x, z, y, noise, nil); err != nil || v != fast {
			t.Errorf("%s: value alone %.17g (%v), with the gradient %.17g", name, v, err, fast)
		}
	}
	// The sum kernel against the dense marginal and its differences.
	k := fastKernels(t)["sum"]
	xd, yd := mat.DenseCopyOf(x.Slice(0, 120, 0, 3)), y[:120]
	grad := make([]float64, k.NumHyper()+1)
	got, err := FITCLogMarginal(k, xd, z, yd, noise, grad)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseFITC(k, xd, z, yd, noise); math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
		t.Errorf("FITC %.12g, dense %.12g", got, want)
	}
	noiseGradCheck(t, "sum", k, noise, grad, func(kk kernels.Kernel, v float64) float64 { return denseFITC(kk, xd, z, yd, v) })
}
