package gp

import (
	"math"
	"runtime"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
)

// fastKernels are kernels the matrix form of SGPR takes: ARD and
// isotropic rbf and Matérn kernels, scaled, summed and nested.
func fastKernels(t *testing.T) map[string]kernels.Kernel {
	must := func(k kernels.Kernel, err error) kernels.Kernel {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	sc := func(c float64, k kernels.Kernel) kernels.Kernel { return must(kernels.NewScaled(c, k)) }
	sum := func(a, b kernels.Kernel) kernels.Kernel { return must(kernels.NewSum(a, b)) }
	rbf := must(kernels.NewRBF([]float64{0.9, 1.4, 2.1}))
	m12 := must(kernels.NewMatern(1, []float64{1.7, 0.8, 2.5}))
	m32 := must(kernels.NewMatern(3, []float64{1.1, 2.2, 0.7}))
	m52 := must(kernels.NewMatern(5, []float64{1.3}))
	return map[string]kernels.Kernel{
		"rbf ARD":            rbf,
		"scaled rbf ARD":     sc(1.3, rbf),
		"scaled matern12":    sc(0.8, m12),
		"scaled matern32":    sc(1.6, m32),
		"matern52 isotropic": m52,
		"sum":                sum(sc(1.2, rbf), sc(0.5, m32)),
		"nested":             sc(0.7, sum(sc(1.5, m52), sum(rbf, sc(0.3, m12)))),
	}
}

// TestSGPRFastMatchesGeneral checks the matrix form of the bound and its
// gradient against the general path (k.Eval and k.GradHyper per pair, the
// streamed V = L⁻¹K_zn), which TestSGPRMatchesDenseAndGradient checks
// against the dense bound and its finite differences, on random data cut
// into blocks of 37 rows, to 1e-10 relative.
func TestSGPRFastMatchesGeneral(t *testing.T) {
	defer func(b int) { sgprFastBlock = b }(sgprFastBlock)
	sgprFastBlock = 37
	x, y := testData(400, 3, 461)
	z, _ := testData(24, 3, 462)
	noise := 0.15
	for name, k := range fastKernels(t) {
		if newFastKernel(k, x, z) == nil {
			t.Fatalf("%s: no matrix form", name)
		}
		gf := make([]float64, k.NumHyper()+1)
		gg := make([]float64, k.NumHyper()+1)
		fast, err := SGPRLogMarginal(k, x, z, y, noise, gf)
		if err != nil {
			t.Fatal(name, err)
		}
		sgprFastPath = false
		gen, err := SGPRLogMarginal(k, x, z, y, noise, gg)
		sgprFastPath = true
		if err != nil {
			t.Fatal(name, err)
		}
		if math.Abs(fast-gen) > 1e-10*math.Abs(gen) {
			t.Errorf("%s: bound %.15g, general path %.15g", name, fast, gen)
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
		// The value alone equals the value with the gradient.
		v, err := SGPRLogMarginal(k, x, z, y, noise, nil)
		if err != nil || v != fast {
			t.Errorf("%s: bound alone %.15g (%v), with the gradient %.15g", name, v, err, fast)
		}
	}
}

// TestSGPRFastDense checks the matrix form against the dense bound and
// its gradient against central differences of it, for a sum of an ARD
// Matérn 5/2 and an rbf (the general path's test uses rbf + linear).
func TestSGPRFastDense(t *testing.T) {
	defer func(b int) { sgprFastBlock = b }(sgprFastBlock)
	sgprFastBlock = 29
	x, y := testData(150, 2, 463)
	z, _ := testData(9, 2, 464)
	m52, _ := kernels.NewMatern(5, []float64{0.8, 1.6})
	rbf, _ := kernels.NewRBF([]float64{1.2})
	a, _ := kernels.NewScaled(1.4, m52)
	k, _ := kernels.NewSum(a, rbf)
	if newFastKernel(k, x, z) == nil {
		t.Fatal("no matrix form")
	}
	noise := 0.2
	grad := make([]float64, k.NumHyper()+1)
	got, err := SGPRLogMarginal(k, x, z, y, noise, grad)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseSGPR(k, x, z, y, noise); math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
		t.Fatalf("bound %.12g, dense %.12g", got, want)
	}
	noiseGradCheck(t, "matrix form", k, noise, grad, func(kk kernels.Kernel, v float64) float64 { return denseSGPR(kk, x, z, y, v) })
}

// TestSGPRFastFewRows checks the matrix form against the general path
// when there are fewer rows than lanes.
func TestSGPRFastFewRows(t *testing.T) {
	x, y := testData(5, 3, 469)
	z, _ := testData(3, 3, 470)
	k := fastKernels(t)["nested"]
	gf := make([]float64, k.NumHyper()+1)
	gg := make([]float64, k.NumHyper()+1)
	fast, err := SGPRLogMarginal(k, x, z, y, 0.3, gf)
	if err != nil {
		t.Fatal(err)
	}
	sgprFastPath = false
	gen, err := SGPRLogMarginal(k, x, z, y, 0.3, gg)
	sgprFastPath = true
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fast-gen) > 1e-10*math.Abs(gen) {
		t.Errorf("bound %.15g, general path %.15g", fast, gen)
	}
	for i := range gf {
		if math.Abs(gf[i]-gg[i]) > 1e-10*(1+math.Abs(gg[i])) {
			t.Errorf("gradient %d: %.15g, general path %.15g", i, gf[i], gg[i])
		}
	}
}

// TestSGPRFastCores checks that the matrix form gives the same bits on
// one core as on several (its lanes are fixed by n alone), for the
// bound, its gradient in the hyperparameters and in the inducing points,
// and FITC's value and gradient.
func TestSGPRFastCores(t *testing.T) {
	defer func(b int) { sgprFastBlock = b }(sgprFastBlock)
	sgprFastBlock = 16
	x, y := testData(300, 3, 465)
	z, _ := testData(20, 3, 466)
	k := fastKernels(t)["sum"]
	run := func(procs int) (float64, []float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		g := make([]float64, k.NumHyper()+1)
		gz := make([]float64, 20*3)
		v, err := SGPRLogMarginalZ(k, x, z, y, 0.1, g, gz)
		if err != nil {
			t.Fatal(err)
		}
		gf := make([]float64, k.NumHyper()+1)
		vf, err := FITCLogMarginal(k, x, z, y, 0.1, gf)
		if err != nil {
			t.Fatal(err)
		}
		return v, append(append(append(g, gz...), vf), gf...)
	}
	v1, g1 := run(1)
	v4, g4 := run(4)
	if v1 != v4 {
		t.Errorf("bound %.17g on one core, %.17g on four", v1, v4)
	}
	for i := range g1 {
		if g1[i] != g4[i] {
			t.Errorf("gradient entry %d: %.17g on one core, %.17g on four", i, g1[i], g4[i])
		}
	}
}

// TestSGPRFastGeneralKernels checks that kernels outside the matrix form
// (a linear part, rq, periodic) keep the general path.
func TestSGPRFastGeneralKernels(t *testing.T) {
	x, _ := testData(10, 3, 467)
	z, _ := testData(4, 3, 468)
	rbf, _ := kernels.NewRBF([]float64{1})
	lin, _ := kernels.NewLinear(0.5)
	rq, _ := kernels.NewRQ([]float64{1}, 2)
	per, _ := kernels.NewPeriodic(1, 2)
	withLin, _ := kernels.NewSum(rbf, lin)
	prod, _ := kernels.NewProduct(rbf, rbf)
	for _, k := range []kernels.Kernel{withLin, rq, per, prod} {
		if newFastKernel(k, x, z) != nil {
			t.Errorf("%s: matrix form taken", k)
		}
	}
}

// TestSGPRFastManyInducing checks the matrix form against the general
// path at m = 300 inducing points, enough for every level-3 product to
// run on blas3's blocked kernels (DTRMM by halves above 256): to 1e-10
// relative where K_zz is well conditioned (lengthscales near 0.7 in a
// 3-D normal cloud), and to 1e-5 of the gradient's scale where it needs
// jitter (lengthscales near 2). There the two paths' rounding differs —
// the matrix form multiplies by L⁻¹ where the general path solves with
// L — and the gradient (through A⁻¹VVᵀL⁻¹) amplifies it: the
// triangular-solve form of the matrix path differed from the general
// path by the same 3e-6 relative on this data.
func TestSGPRFastManyInducing(t *testing.T) {
	x, y := testData(700, 3, 471)
	z, _ := testData(300, 3, 472)
	for _, c := range []struct {
		ell        []float64
		noise, tol float64
	}{
		{[]float64{0.5, 0.7, 0.9}, 0.09, 1e-10},
		{[]float64{0.5, 0.7, 0.9}, 0.01, 1e-10},
		{[]float64{1.5, 2, 2.5}, 0.09, 1e-5},
		{[]float64{1.5, 2, 2.5}, 0.01, 1e-5},
	} {
		rbf, _ := kernels.NewRBF(c.ell)
		k, _ := kernels.NewScaled(1.2, rbf)
		gf := make([]float64, k.NumHyper()+1)
		gg := make([]float64, k.NumHyper()+1)
		fast, err := SGPRLogMarginal(k, x, z, y, c.noise, gf)
		if err != nil {
			t.Fatal(err)
		}
		sgprFastPath = false
		gen, err := SGPRLogMarginal(k, x, z, y, c.noise, gg)
		sgprFastPath = true
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fast-gen) > c.tol*math.Abs(gen) {
			t.Errorf("ℓ %v, noise %g: bound %.15g, general path %.15g", c.ell, c.noise, fast, gen)
		}
		scale := 0.0
		for _, v := range gg {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range gf {
			if math.Abs(gf[i]-gg[i]) > c.tol*scale {
				t.Errorf("ℓ %v, noise %g: gradient %d: %.15g, general path %.15g", c.ell, c.noise, i, gf[i], gg[i])
			}
		}
	}
}

// TestDTCFastMatchesGeneral checks DTC's objective (LowRankLogMarginal)
// in SGPR's matrix form against its general path (the whole n × m cross
// matrix, ContractCross per pair), which TestLowRank* check against a
// dense reference and finite differences: on the fast kernels cut into
// blocks of 37 rows (m = 24) to 1e-10 relative, and at m = 300, where
// every product runs on blas3's blocked kernels and the two paths'
// rounding (L⁻¹ multiplied against solved) differs by 2.5e-9 of the
// gradient's scale on this data, to 1e-8.
func TestDTCFastMatchesGeneral(t *testing.T) {
	defer func(b int) { sgprFastBlock = b }(sgprFastBlock)
	type tc struct {
		name       string
		k          kernels.Kernel
		n, m       int
		noise, tol float64
		block      int
	}
	var cases []tc
	for name, k := range fastKernels(t) {
		cases = append(cases, tc{name, k, 400, 24, 0.15, 1e-10, 37})
	}
	rbf, _ := kernels.NewRBF([]float64{0.5, 0.7, 0.9})
	big, _ := kernels.NewScaled(1.2, rbf)
	cases = append(cases, tc{"m = 300", big, 700, 300, 0.09, 1e-8, 512})
	for _, c := range cases {
		sgprFastBlock = c.block
		x, y := testData(c.n, 3, 475)
		z, _ := testData(c.m, 3, 476)
		gf := make([]float64, c.k.NumHyper()+1)
		gg := make([]float64, c.k.NumHyper()+1)
		fast, err := LowRankLogMarginal(c.k, x, z, y, c.noise, gf)
		if err != nil {
			t.Fatal(c.name, err)
		}
		sgprFastPath = false
		gen, err := LowRankLogMarginal(c.k, x, z, y, c.noise, gg)
		sgprFastPath = true
		if err != nil {
			t.Fatal(c.name, err)
		}
		if math.Abs(fast-gen) > c.tol*math.Abs(gen) {
			t.Errorf("%s: DTC %.15g, general path %.15g", c.name, fast, gen)
		}
		scale := 0.0
		for _, v := range gg {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range gf {
			if math.Abs(gf[i]-gg[i]) > c.tol*scale {
				t.Errorf("%s: gradient %d: %.15g, general path %.15g", c.name, i, gf[i], gg[i])
			}
		}
		if v, err := LowRankLogMarginal(c.k, x, z, y, c.noise, nil); err != nil || v != fast {
			t.Errorf("%s: value alone %.15g (%v), with the gradient %.15g", c.name, v, err, fast)
		}
	}
}
