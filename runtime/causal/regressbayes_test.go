package causal

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/runtime/rng"
)

// denseDraw computes, for d = 1 and θ = (log s, log ℓ, log(σ² − 10⁻⁴)),
// the residual σ²C⁻¹y and the log posterior (normal priors N(mean_i, sd²))
// with C = s·exp(−½(z_i − z_j)²/ℓ²) + σ²I by an explicit inverse and
// determinant: the reference RegressBayes's weights and residuals are
// checked against.
func denseDraw(z, y []float64, q, mean []float64, sd float64) ([]float64, float64) {
	n := len(y)
	s, ell, noise := math.Exp(q[0]), math.Exp(q[1]), 1e-4+math.Exp(q[2])
	c := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d := (z[i] - z[j]) / ell
			c.Set(i, j, s*math.Exp(-d*d/2))
		}
		c.Set(i, i, c.At(i, i)+noise)
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		panic(err)
	}
	logdet, _ := mat.LogDet(c)
	a := mat.NewVecDense(n, nil)
	a.MulVec(&inv, mat.NewVecDense(n, y))
	r := make([]float64, n)
	quad := 0.0
	for i := range r {
		r[i] = noise * a.AtVec(i)
		quad += y[i] * a.AtVec(i)
	}
	lp := -quad/2 - logdet/2 - float64(n)/2*math.Log(2*math.Pi)
	for i, v := range q {
		e := (v - mean[i]) / sd
		lp += -e*e/2 - math.Log(sd) - math.Log(2*math.Pi)/2
	}
	return r, lp
}

func bayesData(seed uint64, n int) (*mat.Dense, []float64) {
	r := rand.New(rand.NewPCG(seed, 0x62617972))
	z := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range y {
		v := 4*r.Float64() - 2
		z.Set(i, 0, v)
		y[i] = math.Sin(1.5*v) + 0.3*r.NormFloat64()
	}
	return z, y
}

// With one draw, at ML-II's hyperparameters, the averaged regression is
// Regress's point estimate; with several, the weights are posterior over
// proposal (self-normalised) and the residuals σ²C⁻¹y, both against the
// dense reference.
func TestPosteriorMeanResiduals(t *testing.T) {
	ctx := context.Background()
	z, y := bayesData(1, 30)
	p, err := prepareRegression(z, y)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Regress(ctx, z, y)
	if err != nil {
		t.Fatal(err)
	}
	mean := []float64{0, 0, math.Log(0.1)}
	o := &mlObjective{k: p.base, x: p.zs, y: p.ys, priorMean: mean, priorSD: 2}
	h := reg.Kernel.Hyper(nil)
	mode := []float64{math.Log(h[0]), math.Log(h[1]), math.Log(reg.Noise - noiseFloor)}
	one, err := posteriorMeanResiduals(ctx, o, [][]float64{mode}, []float64{-3})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range one.resid {
		if got := p.sd * v; math.Abs(got-reg.Resid[i]) > 1e-12*(1+math.Abs(reg.Resid[i])) {
			t.Fatalf("one draw at the ML-II mode: residual %d is %v, Regress gives %v", i, got, reg.Resid[i])
		}
	}
	qs := [][]float64{mode, {0.3, -0.5, -1}, {-1, 0.4, -3}, {mode[0] + 0.1, mode[1] - 0.2, mode[2] + 0.3}}
	logq := []float64{-1, -2.5, 0.5, -0.2}
	got, err := posteriorMeanResiduals(ctx, o, qs, logq)
	if err != nil {
		t.Fatal(err)
	}
	zc := mat.Col(nil, 0, p.zs)
	lws := make([]float64, len(qs))
	rs := make([][]float64, len(qs))
	top := math.Inf(-1)
	for s, q := range qs {
		var lp float64
		rs[s], lp = denseDraw(zc, p.ys, q, mean, 2)
		lws[s] = lp - logq[s]
		top = max(top, lws[s])
	}
	var sum float64
	for s := range lws {
		lws[s] = math.Exp(lws[s] - top)
		sum += lws[s]
	}
	for s := range qs {
		if w := lws[s] / sum; math.Abs(w-got.w[s]) > 1e-9 {
			t.Errorf("weight %d: %v, dense %v", s, got.w[s], w)
		}
	}
	for i := range got.resid {
		var want float64
		for s := range qs {
			want += lws[s] / sum * rs[s][i]
		}
		if math.Abs(got.resid[i]-want) > 1e-9 {
			t.Errorf("residual %d: %v, dense %v", i, got.resid[i], want)
		}
	}
}

// RegressBayes's importance-sampled posterior mean of the residuals agrees
// with the same integral by a Riemann sum over a 21³ grid of θ (spectrally
// accurate for a smooth integrand that vanishes at the grid's edges, ±5
// prior sd) within 0.01: on y = sin 1.5z + e, where the point estimate at
// the mode misses the quadrature by more (so a wrong weight fails), and on
// y = sin 6z + e, whose posterior has two modes (the signal and all-noise
// maxima), so the mixture proposal is checked too.
func TestRegressBayesMatchesQuadrature(t *testing.T) {
	ctx := context.Background()
	fast := func() (*mat.Dense, []float64) {
		r := rand.New(rand.NewPCG(0, 5))
		z := mat.NewDense(15, 1, nil)
		y := make([]float64, 15)
		for i := range y {
			v := r.NormFloat64()
			z.Set(i, 0, v)
			y[i] = math.Sin(6*v) + 0.3*r.NormFloat64()
		}
		return z, y
	}
	for c := 0; c < 2; c++ {
		z, y := bayesData(2, 15)
		if c == 1 {
			z, y = fast()
		}
		p, _ := prepareRegression(z, y)
		const sd = 1
		mean := []float64{0, 0, math.Log(0.1)}
		zc := mat.Col(nil, 0, p.zs)
		n := len(y)
		const m = 21
		want := make([]float64, n)
		var lps []float64
		var rs [][]float64
		top := math.Inf(-1)
		g := func(k int) float64 { return -5*sd + 10*sd*float64(k)/(m-1) }
		for a := 0; a < m; a++ {
			for b := 0; b < m; b++ {
				for c := 0; c < m; c++ {
					q := []float64{mean[0] + g(a), mean[1] + g(b), mean[2] + g(c)}
					r, lp := denseDraw(zc, p.ys, q, mean, sd)
					lps = append(lps, lp)
					rs = append(rs, r)
					top = max(top, lp)
				}
			}
		}
		var sum float64
		for k, lp := range lps {
			w := math.Exp(lp - top)
			sum += w
			for i, v := range rs[k] {
				want[i] += w * v
			}
		}
		for i := range want {
			want[i] *= p.sd / sum
		}
		reg, err := RegressBayes(ctx, z, y, RegressionBayes{Draws: 4000, PriorSD: sd}, 7, rng.RegressBayes)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for i := range want {
			worst = max(worst, math.Abs(reg.Resid[i]-want[i]))
		}
		t.Logf("case %d: %d modes, ESS %.0f of %d, max weight %.4f; largest difference from quadrature %.2g", c, reg.Posterior.Modes, reg.Posterior.ESS, reg.Posterior.Draws, reg.Posterior.MaxWeight, worst)
		if worst > 0.01 {
			t.Errorf("case %d: importance-sampled residuals differ from quadrature by %.3g", c, worst)
		}
		if c == 1 && reg.Posterior.Modes < 2 {
			t.Errorf("case 1: %d modes found; the check of the mixture needs two", reg.Posterior.Modes)
		}
		if c == 0 {
			// The point estimate at the mode must miss the quadrature by
			// more, or the check could not tell integration from none.
			h := reg.Kernel.Hyper(nil)
			mode, _ := denseDraw(zc, p.ys, []float64{math.Log(h[0]), math.Log(h[1]), math.Log(reg.Noise - noiseFloor)}, mean, sd)
			var modeDiff float64
			for i := range want {
				modeDiff = max(modeDiff, math.Abs(p.sd*mode[i]-want[i]))
			}
			t.Logf("the mode's residuals differ from quadrature by %.2g", modeDiff)
			if modeDiff < 0.03 {
				t.Errorf("the mode's residuals are within %.3g of the posterior mean: the check cannot fail", modeDiff)
			}
		}
	}
}

// The GP-residual HSIC test with the regression integrated over the
// hyperparameters keeps its level (α = 0.1, 50 seeded replications of
// nonlinear's design at n = 40, gamma null: within 3 SE,
// SE = √(0.1·0.9/50) ≈ 0.042), records its draws, and still rejects under
// the dependence in most of 12 replications.
func TestKernelCIBayesLevel(t *testing.T) {
	test := KernelTest{KX: KernelSpec{Choice: ktest.ChoiceMedian}, KY: KernelSpec{Choice: ktest.ChoiceMedian},
		Method: ktest.Gamma, Settings: ktest.Settings{Workers: 1}, Bayes: &RegressionBayes{Draws: 32}}
	const reps, alpha = 50, 0.1
	rate := func(dependent bool, reps int) float64 {
		rej := 0
		for rep := 0; rep < reps; rep++ {
			r := rand.New(rand.NewPCG(uint64(rep), 0x63696279))
			x, y, z := nonlinear(r, 40, dependent)
			res, err := test.Test(context.Background(), x, y, z, uint64(rep))
			if err != nil {
				t.Fatal(err)
			}
			if res.HSIC.PValue <= alpha {
				rej++
			}
			for _, g := range append(res.RegX, res.RegY...) {
				if p := g.Posterior; p == nil || p.Draws != 32 || !(p.ESS >= 1 && p.ESS <= 32) || len(p.EllMean) != 1 {
					t.Fatalf("the regression does not record its posterior: %+v", g.Posterior)
				}
			}
		}
		return float64(rej) / float64(reps)
	}
	se := math.Sqrt(alpha * (1 - alpha) / reps)
	r0 := rate(false, reps)
	if math.Abs(r0-alpha) > 3*se {
		t.Errorf("type-I error %.3f, α = %.2f ± 3·%.3f", r0, alpha, se)
	}
	t.Logf("type-I error %.3f", r0)
	if r := rate(true, 12); r < 0.7 {
		t.Errorf("power %.3f under the dependence, want at least 0.7", r)
	} else {
		t.Logf("power %.3f", r)
	}
}

// BenchmarkRegression compares one regression of n = 200 rows on a 1-D z
// by ML-II and by RegressBayes's 64 draws.
func BenchmarkRegression(b *testing.B) {
	z, y := bayesData(3, 200)
	b.Run("ml2", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Regress(context.Background(), z, y); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bayes", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := RegressBayes(context.Background(), z, y, RegressionBayes{}, uint64(i), rng.RegressBayes); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// mixtureLogDensity is the equal mixture of t₄ densities, each against a
// dense evaluation with Σ = LLᵀ, its explicit inverse and determinant.
func TestMixtureLogDensity(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0x6d6978))
	var modes []mode
	for k := 0; k < 3; k++ {
		l := mat.NewDense(3, 3, nil)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				l.Set(i, j, 0.3*r.NormFloat64())
			}
			l.Set(i, i, l.At(i, i)+1)
		}
		var lu mat.LU
		lu.Factorize(l)
		ld, _ := lu.LogDet()
		modes = append(modes, mode{q: []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}, l: l, logDetL: ld})
	}
	q := []float64{0.3, -0.2, 0.5}
	var want float64
	for _, md := range modes {
		var sigma, inv mat.Dense
		sigma.Mul(md.l, md.l.T())
		if err := inv.Inverse(&sigma); err != nil {
			t.Fatal(err)
		}
		det := mat.Det(&sigma)
		dv := mat.NewVecDense(3, nil)
		for i := range q {
			dv.SetVec(i, q[i]-md.q[i])
		}
		var tmp mat.VecDense
		tmp.MulVec(&inv, dv)
		m := mat.Dot(dv, &tmp)
		// ν = 4, p = 3: Γ(3.5)/(Γ(2)(4π)^{3/2}) = (15√π/8)/(4π)^{3/2}.
		c := 15 * math.Sqrt(math.Pi) / 8 / math.Pow(4*math.Pi, 1.5)
		want += c / math.Sqrt(det) * math.Pow(1+m/4, -3.5) / 3
	}
	if got := mixtureLogDensity(modes, q); math.Abs(got-math.Log(want)) > 1e-12 {
		t.Errorf("log density %v, dense %v", got, math.Log(want))
	}
}
