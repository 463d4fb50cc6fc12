package bke

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestNewErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	x := randMatrix(rng, 10, 2, 1)
	z := randMatrix(rng, 4, 2, 1)
	nan := randMatrix(rng, 10, 2, 1)
	nan.Set(6, 1, math.NaN())
	inf := randMatrix(rng, 4, 2, 1)
	inf.Set(2, 0, math.Inf(1))
	for _, c := range []struct {
		name string
		x, z *mat.Dense
		opt  Options
		says []string
	}{
		{"shapes", x, randMatrix(rng, 4, 3, 1), Options{}, []string{"10×2", "4×3"}},
		{"NaN", nan, z, Options{}, []string{"data row 7", "column 2", "NaN"}},
		{"Inf", x, inf, Options{}, []string{"landmark row 3", "+Inf"}},
		{"m < D", x, randMatrix(rng, 1, 2, 1), Options{}, []string{"1 landmarks in 2 dimensions"}},
		{"eta", x, z, Options{Prior: Gaussian}, []string{"eta = 0"}},
		{"workers", x, z, Options{Workers: -1}, []string{"workers = -1"}},
		{"empty", mat.NewDense(1, 2, nil), nil, Options{}, []string{"non-empty"}},
	} {
		_, err := New(c.x, c.z, c.opt)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not say %q", c.name, err, s)
			}
		}
	}
}

func TestHyperErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	md, err := New(randMatrix(rng, 10, 2, 1), randMatrix(rng, 4, 2, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h    Hyper
		says string
	}{
		{Hyper{Ell: []float64{1, -2}, Tau2: 1}, "ell.2 = -2"},
		{Hyper{Ell: []float64{0}, Tau2: 1}, "ell = 0"},
		{Hyper{Ell: []float64{1, 2, 3}, Tau2: 1}, "3 lengthscales for 2-dimensional"},
		{Hyper{Ell: []float64{1}, Tau2: 0}, "tau2 = 0"},
		{Hyper{Ell: []float64{1}, Tau2: 1, Amp: -1}, "amp = -1"},
		{Hyper{Ell: []float64{math.Inf(1)}, Tau2: 1}, "ell = +Inf"},
	} {
		_, err := md.LogDensity(c.h, nil)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: error %v does not say %q", c.h, err, c.says)
		}
	}
	// Amp 0 means 1.
	a, _ := md.LogDensity(Hyper{Ell: []float64{1}, Tau2: 1}, nil)
	b, _ := md.LogDensity(Hyper{Ell: []float64{1}, Tau2: 1, Amp: 1}, nil)
	if a != b {
		t.Errorf("amp 0 gives %g, amp 1 gives %g", a, b)
	}
}

// TestCentredSum checks the shifted one-pass centred sums (of squares, and
// the cross sums of the gradient) against two-pass computations on the same
// kernel values at lengthscales where ‖K‖_F² − n‖μ̂‖² cancels, and that the
// difference form does fail there.
func TestCentredSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(105, 106))
	x := randMatrix(rng, 2000, 1, 1)
	z := randMatrix(rng, 10, 1, 1)
	md, err := New(x, z, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	naiveFails := false
	for _, ell := range []float64{1, 100, 1e4} {
		p, err := md.prepare(Hyper{Ell: []float64{ell}}, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := md.run(p, true, false)
		if err != nil {
			t.Fatal(err)
		}
		// The same sums by two passes: y_il = e_il q_il = ℓ ∂e_il/∂ℓ.
		var twoPass, cov, sq, mu2 float64
		for l := 0; l < md.m; l++ {
			col := make([]float64, md.n)
			y := make([]float64, md.n)
			var mean, ymean float64
			for i := range col {
				col[i] = seK(1, []float64{ell}, md.xrow(i), md.zrow(l))
				d := (md.xrow(i)[0] - md.zrow(l)[0]) / ell
				y[i] = col[i] * d * d
				mean += col[i]
				ymean += y[i]
				sq += col[i] * col[i]
			}
			mean /= float64(md.n)
			ymean /= float64(md.n)
			mu2 += mean * mean
			for i, v := range col {
				twoPass += (v - mean) * (v - mean)
				cov += (v - mean) * (y[i] - ymean)
			}
			if math.Abs(res.ymean[l]-ymean) > 1e-12*ymean {
				t.Errorf("ℓ = %g: mean of y at landmark %d is %.15g, two-pass %.15g", ell, l, res.ymean[l], ymean)
			}
		}
		if math.Abs(res.css-twoPass) > 1e-9*twoPass {
			t.Errorf("ℓ = %g: centred sum %.15g, two-pass %.15g", ell, res.css, twoPass)
		}
		if math.Abs(res.ycov[0]-cov) > 1e-9*math.Abs(cov) {
			t.Errorf("ℓ = %g: centred cross sum %.15g, two-pass %.15g", ell, res.ycov[0], cov)
		}
		if naive := sq - float64(md.n)*mu2; math.Abs(naive-twoPass) > 1e-3*twoPass {
			naiveFails = true
		}
	}
	if !naiveFails {
		t.Error("‖K‖² − n‖μ̂‖² never cancelled: the test does not reach the hard case")
	}
}

// TestGradientLargeLengthscale checks the gradient where the centred sums
// are small differences of large ones: ℓ in the hundreds with a small τ².
// (Much smaller τ² makes A = R + (τ²/n) I so ill-conditioned, cond 6e12 at
// τ² = 1e-9, that the finite differences themselves lose their digits.)
func TestGradientLargeLengthscale(t *testing.T) {
	rng := rand.New(rand.NewPCG(107, 108))
	x, z := Split(randMatrix(rng, 300, 1, 1), 12, 2)
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGradient(t, "ℓ = 200", md, Hyper{Ell: []float64{200}, Amp: 1, Tau2: 1e-6}, 1e-5)
	x2, z2 := Split(randMatrix(rng, 300, 2, 1), 12, 2)
	md2, err := New(x2, z2, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkGradient(t, "ARD ℓ = (150, 300)", md2, Hyper{Ell: []float64{150, 300}, Amp: 1, Tau2: 1e-6}, 1e-5)
}

func TestFactorJitter(t *testing.T) {
	// A rank-one matrix needs jitter; an indefinite one cannot be saved.
	v := []float64{1, 2, 3}
	a := mat.NewSymDense(3, nil)
	a.SymOuterK(1, mat.NewDense(3, 1, v))
	chol, jit, err := factorJitter(a, "test")
	if err != nil || jit <= 0 || jit > 1e-4*14/3 {
		t.Errorf("rank one: jitter %g, error %v", jit, err)
	} else if d := chol.Det(); !(d > 0) {
		t.Errorf("rank one: det %g after jitter", d)
	}
	b := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	if _, _, err := factorJitter(b, "the test matrix"); err == nil || !strings.Contains(err.Error(), "the test matrix") {
		t.Errorf("indefinite: error %v", err)
	}
	// Duplicated landmarks with a noise far below R: finite log density.
	rng := rand.New(rand.NewPCG(109, 110))
	x := randMatrix(rng, 50, 1, 1)
	z := mat.NewDense(4, 1, []float64{0.1, 0.1, -0.5, 0.7})
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	val, err := md.LogDensity(Hyper{Ell: []float64{1}, Tau2: 1e-300}, nil)
	if err != nil || math.IsNaN(val) || math.IsInf(val, 0) {
		t.Errorf("duplicated landmarks, tau2 = 1e-300: %v, %v", val, err)
	}
}

// TestConcurrentUse evaluates one model from several goroutines.
func TestConcurrentUse(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 112))
	md, err := New(randMatrix(rng, 1500, 2, 1), randMatrix(rng, 10, 2, 1), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	h := Hyper{Ell: []float64{0.9}, Tau2: 1}
	want, _ := md.LogDensity(h, nil)
	done := make(chan float64)
	for k := 0; k < 4; k++ {
		go func() {
			var g Grad
			v, _ := md.LogDensity(h, &g)
			done <- v
		}()
	}
	for k := 0; k < 4; k++ {
		if v := <-done; v != want {
			t.Errorf("concurrent evaluation %g, alone %g", v, want)
		}
	}
}

func TestOverflowingRow(t *testing.T) {
	for _, dim := range []int{1, 2, 3} {
		x := mat.NewDense(3, dim, nil)
		x.Set(1, 0, 1e200)
		z := mat.NewDense(dim+1, dim, nil)
		for l := 0; l <= dim; l++ {
			if l > 0 {
				z.Set(l, l-1, 1)
			}
		}
		md, err := New(x, z, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = md.LogDensity(Hyper{Ell: []float64{1e-3}, Tau2: 1}, nil)
		if err == nil || !strings.Contains(err.Error(), "row 2") {
			t.Errorf("D=%d: error %v does not name row 2", dim, err)
		}
	}
}

// TestReusedBuffersMatchFresh evaluates one model in a sequence that
// changes what its pooled workspaces hold (ARD then isotropic lengthscales,
// with and without a gradient, each variant, a failing evaluation between)
// and requires every value and gradient to be bit for bit those of a new
// model evaluated once: a buffer read before it is cleared or resized
// would make them differ.
func TestReusedBuffersMatchFresh(t *testing.T) {
	rng := rand.New(rand.NewPCG(113, 114))
	x, z := randMatrix(rng, 300, 2, 1), randMatrix(rng, 12, 2, 1)
	seq := []struct {
		h    Hyper
		grad bool
	}{
		{Hyper{Ell: []float64{0.7, 1.3}, Amp: 1.5, Tau2: 0.8}, true},
		{Hyper{Ell: []float64{0.9}, Tau2: 1.2}, true},
		{Hyper{Ell: []float64{0.4, 0.6}, Tau2: 0.5}, false},
		{Hyper{Ell: []float64{-1}, Tau2: 1}, true}, // fails: ell < 0
		{Hyper{Ell: []float64{1.1}, Amp: 0.7, Tau2: 2}, false},
		{Hyper{Ell: []float64{0.3}, Tau2: 0.9}, true},
		{Hyper{Ell: []float64{0.5, 0.8}, Tau2: 1}, true},
	}
	for _, v := range []Variant{Derived, Published} {
		for _, workers := range []int{1, 2} {
			opt := Options{Variant: v, Workers: workers}
			md, err := New(x, z, opt)
			if err != nil {
				t.Fatal(err)
			}
			for k, c := range seq {
				fresh, err := New(x, z, opt)
				if err != nil {
					t.Fatal(err)
				}
				var g, gf *Grad
				if c.grad {
					g, gf = new(Grad), new(Grad)
				}
				got, err := md.LogDensity(c.h, g)
				want, errf := fresh.LogDensity(c.h, gf)
				if (err == nil) != (errf == nil) {
					t.Fatalf("%v, workers %d, step %d: error %v, fresh model's %v", v, workers, k, err, errf)
				}
				if err != nil {
					continue
				}
				if got != want {
					t.Errorf("%v, workers %d, step %d: %v, fresh model %v", v, workers, k, got, want)
				}
				if !c.grad {
					continue
				}
				if g.Amp != gf.Amp || g.Tau2 != gf.Tau2 || len(g.Ell) != len(gf.Ell) {
					t.Errorf("%v, workers %d, step %d: gradient %+v, fresh model %+v", v, workers, k, *g, *gf)
					continue
				}
				for j := range g.Ell {
					if g.Ell[j] != gf.Ell[j] {
						t.Errorf("%v, workers %d, step %d: ∂/∂ell[%d] %v, fresh model %v", v, workers, k, j, g.Ell[j], gf.Ell[j])
					}
				}
			}
		}
	}
}
