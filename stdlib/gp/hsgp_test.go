package gp_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestHsgpValue: hsgp's matrix outside a model is Φ·diag(√S), recomputed
// here from the paper's formulas (Riutort-Mayol et al. 2023) for
// sigma² · rbf(ell) in one dimension: φ_j(x) = L^(−1/2) sin(√λ_j (x − c + L)),
// λ_j = (jπ/2L)², S(ω) = σ² √(2π) ℓ exp(−ℓ²ω²/2).
// Its product with its transpose is then close to gram's exact matrix.
func TestHsgpValue(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [0.3, -1.2, 2.0, 0.9, -0.4]
let B = hsgp(x, 1.7 * rbf(0.8), m: 30, c: 2.5)
let B2 = hsgp(x, 1.7 * rbf(0.8), m: 6, L: 4, center: 0.5)
let K = gram(1.7 * rbf(0.8), x)
let A = B @ transpose(B)
`)
	xs := []float64{0.3, -1.2, 2.0, 0.9, -0.4}
	check := func(name string, m int, centre, L float64) {
		b := kmltest.Lookup[*eval.Mat](t, in, name).M
		if r, c := b.Dims(); r != 5 || c != m {
			t.Fatalf("%s is %d×%d", name, r, c)
		}
		for i, x := range xs {
			for j := 1; j <= m; j++ {
				w := float64(j) * math.Pi / (2 * L)
				s := 1.7 * math.Sqrt(2*math.Pi) * 0.8 * math.Exp(-0.64*w*w/2)
				want := math.Sin(w*(x-centre+L)) / math.Sqrt(L) * math.Sqrt(s)
				if got := b.At(i, j-1); math.Abs(got-want) > 1e-13 {
					t.Errorf("%s[%d, %d] = %v, want %v", name, i+1, j, got, want)
				}
			}
		}
	}
	check("B", 30, 0.4, 2.5*1.6)
	check("B2", 6, 0.5, 4)
	k := kmltest.Lookup[*eval.Mat](t, in, "K").M
	a := kmltest.Lookup[*eval.Mat](t, in, "A").M
	if !mat.EqualApprox(k, a, 1e-7) { // the boundary: 1.7·k(2(L − S)) = 1.7·exp(−18) = 2.6e-8
		t.Errorf("Φ diag(S) Φᵀ = %v, gram = %v", mat.Formatted(a), mat.Formatted(k))
	}
}

// TestHsgpGradient: the gradient of models using hsgp with hyperparameters
// as parameters (a scaled rbf, an ARD matern52 on two columns with a
// product basis, a sum whose other hyperparameters are numbers) against
// central finite differences.
func TestHsgpGradient(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [0.3, -1.2, 2.0, 0.9, -0.4, 1.4]
let X = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8]]
let y = [0.2, 0.6, -0.3, 0.9, 0.1, 0.5]
let z = [0.1, 0.4, -0.2, 0.3, 0.0]
model one {
  ell ~ lognormal(0, 1)
  s ~ half_normal(1)
  beta[8] ~ normal(0, 1)
  y ~ normal(hsgp(x, s^2 * rbf(ell), m: 8) @ beta, 0.5)
}
model two {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  beta[12] ~ normal(0, 1)
  z ~ normal(hsgp(X, a * matern52(ell), m: [4, 3], c: 2) @ beta, 0.5)
}
model sum {
  l1 ~ lognormal(0, 1)
  l2 ~ lognormal(0, 1)
  t ~ lognormal(0, 1)
  beta[6] ~ normal(0, 1)
  y ~ normal(hsgp(x, rbf(l1) + 0.7 * matern32(l2) + t * matern52(0.8), m: 6) @ beta, 0.5)
}
`)
	point := func(n int, seed float64) []float64 {
		q := make([]float64, n)
		for i := range q {
			q[i] = 0.3 * math.Sin(seed*float64(i+1))
		}
		return q
	}
	kmltest.CheckModelGradient(t, in, "one", 1e-6, point(10, 1), point(10, 2))
	kmltest.CheckModelGradient(t, in, "two", 1e-6, point(15, 1), point(15, 3))
	kmltest.CheckModelGradient(t, in, "sum", 1e-6, point(9, 1), point(9, 4))
}

// TestHsgpMatchesExactGP: NUTS on the HSGP model agrees with the exact
// latent GP (gp(), f integrated out, hyperparameters by NUTS) on the same
// data, n = 60 points of sin(2x) + N(0, 0.3²) on [−2, 2], rbf kernel,
// m = 20 and c = 2 (enough by the rule of thumb for ℓ/S ≥ 0.25 where the
// posterior of ℓ lies). Tolerances: the posterior means of ell, s and
// sigma within 4·√(mcse₁² + mcse₂²) (the summaries' Monte Carlo standard
// errors) plus 0.02 for the approximation, and the posterior mean of f at
// every x within 0.06 of the exact predict(post, x)'s f_mean (f's
// posterior sd is 0.1–0.15, and the per-point Monte Carlo sd of the mean
// over 400 draws about 0.01). Seeded; 2 chains × 150 warm-up + 200 draws.
func TestHsgpMatchesExactGP(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(uniform(-2, 2), 60, seed: 7)
let y = sin(2 * x) + draw(normal(0, 0.3), 60, seed: 8)
model exact {
  ell ~ lognormal(0, 0.5)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  f ~ gp(x, s^2 * rbf(ell))
  y ~ normal(f, sigma)
}
model approx {
  ell ~ lognormal(0, 0.5)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  beta[20] ~ normal(0, 1)
  f = hsgp(x, s^2 * rbf(ell), m: 20, c: 2) @ beta
  y ~ normal(f, sigma)
}
let pe = sample(exact, chains: 2, warmup: 150, draws: 200, seed: 21)
let ph = sample(approx, chains: 2, warmup: 150, draws: 200, seed: 22)
let fe = predict(pe, x, draws: 100).f_mean
`)
	pe := kmltest.Lookup[*infer.Posterior](t, in, "pe")
	ph := kmltest.Lookup[*infer.Posterior](t, in, "ph")
	row := func(p *infer.Posterior, name string) (mean, mcse float64) {
		for _, r := range p.Summary.Params {
			if r.Name == name {
				return r.Mean, r.MCSEMean
			}
		}
		t.Fatalf("no %s in the summary", name)
		return
	}
	for _, name := range []string{"ell", "s", "sigma"} {
		me, se := row(pe, name)
		mh, sh := row(ph, name)
		tol := 4*math.Hypot(se, sh) + 0.02
		t.Logf("%s: exact %.4f (mcse %.4f), hsgp %.4f (mcse %.4f), tolerance %.3f", name, me, se, mh, sh, tol)
		if math.Abs(me-mh) > tol {
			t.Errorf("posterior mean of %s: exact %v, hsgp %v (tolerance %v)", name, me, mh, tol)
		}
	}
	fe := kmltest.Lookup[*eval.Vec](t, in, "fe").Data
	worst := 0.0
	for i := range fe {
		mh, _ := row(ph, fmt.Sprintf("f.%d", i+1))
		worst = max(worst, math.Abs(mh-fe[i]))
	}
	t.Logf("posterior mean of f: max abs difference %.4f over %d points", worst, len(fe))
	if worst > 0.06 {
		t.Errorf("posterior mean of f differs by %v", worst)
	}
}

func TestHsgpErrors(t *testing.T) {
	const x = "let x = [0.3, -1.2, 2.0, 0.9]\n"
	for _, tc := range []struct{ src, want string }{
		{"hsgp([[1, 2], [3, 4]], periodic(1, 2))", "t.kml:1:24: error: hsgp: periodic(1, 2): hsgp approximates the periodic kernel on one input column"},
		{x + "hsgp(x, periodic(1, 2), m: [3, 4])", "m has 2 values but a periodic kernel takes one"},
		{x + "hsgp(x, rq(1, 2))", "rational quadratic"},
		{x + "hsgp(x, rbf(1) * matern32(1))", "approximates a product of kernels only as periodic × a stationary kernel"},
		{x + "hsgp(x, periodic(1, 2) * periodic(1, 3))", "use the exact gp(), or a sum of approximated kernels"},
		{x + "hsgp(x, linear())", "only stationary kernels"},
		{x + "hsgp(x, rbf([1, 2]))", "2 lengthscales but the inputs have 1 columns"},
		{x + "hsgp(x, rbf(1), m: 2.5)", "t.kml:2:20: error: hsgp: m must be whole numbers of at least 1, got 2.5"},
		{x + "hsgp(x, rbf(1), m: 0)", "m must be whole numbers of at least 1"},
		{x + "hsgp(x, rbf(1), c: 0.8)", "t.kml:2:20: error: hsgp: c must be at least 1"},
		{x + "hsgp(x, rbf(1), L: 1)", "t.kml:2:6: error: hsgp: x[2, 1] = -1.2 is outside the approximation's domain"},
		{x + "hsgp(x, rbf(1), m: [3, 4])", "m has 2 values but x has 1 columns"},
		{"hsgp([1, 1, 1], rbf(1))", "has no spread, so the box cannot be set from it; give L"},
		{x + "model m { a ~ normal(0, 1)\n b[20] ~ normal(0, 1)\n x ~ normal(hsgp(x * a, rbf(1)) @ b, 1) }\nsample(m)", "hsgp's x must be data"},
		{x + "model m { a ~ lognormal(0, 1)\n b[20] ~ normal(0, 1)\n x ~ normal(hsgp(x, rbf(1), L: a) @ b, 1) }\nsample(m)", "hsgp's L must be data"},
	} {
		kmltest.ExpectError(t, tc.src, tc.want)
	}
}

// TestHsgpPeriodicValue: hsgp's matrix for a scaled periodic kernel is the
// cosine series' features (Riutort-Mayol et al. 2023, §5), recomputed here
// with e^(−a)I_j(a), a = 1/0.8², from SciPy (scipy.special.ive(j, a),
// stored): √c·q_0, then √c·q_j cos(jω₀x), √c·q_j sin(jω₀x), q_j² =
// 2e^(−a)I_j(a), ω₀ = 2π/p; with m = 20 harmonics (40 with the rbf) its product with its
// transpose is gram's exact matrix, also for a sum with an rbf (whose
// Hilbert columns come first) and for the locally periodic product
// periodic × rbf with c = 6 and m = 120 (measured max error 3.2·10⁻¹⁰;
// 1.6·10⁻⁴ at m = 60, too few for its harmonics up to about 8·2π/2.5).
func TestHsgpPeriodicValue(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [0.3, -1.2, 2.0, 0.9, -0.4]
let B = hsgp(x, 1.7 * periodic(0.8, 2.5), m: 2)
let K = gram(1.7 * periodic(0.8, 2.5), x)
let A = hsgp(x, 1.7 * periodic(0.8, 2.5), m: 20)
let S = hsgp(x, 1.7 * periodic(0.8, 2.5) + 0.4 * rbf(0.7), m: 40, c: 3)
let KS = gram(1.7 * periodic(0.8, 2.5) + 0.4 * rbf(0.7), x)
let P = hsgp(x, 1.7 * periodic(1.5, 2.5) * rbf(1.2), m: 120, c: 6)
let KP = gram(1.7 * periodic(1.5, 2.5) * rbf(1.2), x)
`)
	ive := []float64{0.35844525508684205, 0.21908451709421356, 0.078017073206248691}
	b := kmltest.Lookup[*eval.Mat](t, in, "B").M
	if r, c := b.Dims(); r != 5 || c != 5 {
		t.Fatalf("B is %d×%d", r, c)
	}
	for i, x := range []float64{0.3, -1.2, 2.0, 0.9, -0.4} {
		w := 2 * math.Pi / 2.5
		want := []float64{
			math.Sqrt(1.7 * ive[0]),
			math.Sqrt(1.7*2*ive[1]) * math.Cos(w*x), math.Sqrt(1.7*2*ive[1]) * math.Sin(w*x),
			math.Sqrt(1.7*2*ive[2]) * math.Cos(2*w*x), math.Sqrt(1.7*2*ive[2]) * math.Sin(2*w*x),
		}
		for j, v := range want {
			if got := b.At(i, j); math.Abs(got-v) > 1e-14 {
				t.Errorf("B[%d, %d] = %v, want %v", i+1, j+1, got, v)
			}
		}
	}
	for _, tc := range []struct {
		f, k string
		tol  float64
	}{{"A", "K", 1e-9}, {"S", "KS", 1e-9}, {"P", "KP", 1e-8}} {
		f := kmltest.Lookup[*eval.Mat](t, in, tc.f).M
		k := kmltest.Lookup[*eval.Mat](t, in, tc.k).M
		var a mat.Dense
		a.Mul(f, f.T())
		if !mat.EqualApprox(k, &a, tc.tol) {
			t.Errorf("%s·%sᵀ = %v, gram = %v", tc.f, tc.f, mat.Formatted(&a), mat.Formatted(k))
		}
	}
}

// TestHsgpPeriodicGradient: the gradient of models with a periodic kernel
// in hsgp, its lengthscale, period and scale parameters (the period's
// derivative goes through the basis), alone, summed with an rbf and
// multiplied by a matern52, against central finite differences.
func TestHsgpPeriodicGradient(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [0.3, -1.2, 2.0, 0.9, -0.4, 1.4]
let y = [0.2, 0.6, -0.3, 0.9, 0.1, 0.5]
model per {
  ell ~ lognormal(0, 1)
  p ~ lognormal(0, 1)
  s ~ half_normal(1)
  beta[9] ~ normal(0, 1)
  y ~ normal(hsgp(x, s^2 * periodic(ell, p), m: 4) @ beta, 0.5)
}
model sum {
  ell ~ lognormal(0, 1)
  p ~ lognormal(0, 1)
  l2 ~ lognormal(0, 1)
  beta[13] ~ normal(0, 1)
  y ~ normal(hsgp(x, periodic(ell, p) + 0.5 * rbf(l2), m: 4) @ beta, 0.5)
}
model prod {
  ell ~ lognormal(0, 1)
  p ~ lognormal(0, 1)
  l2 ~ lognormal(0, 1)
  s ~ half_normal(1)
  beta[10] ~ normal(0, 1)
  y ~ normal(hsgp(x, s * periodic(ell, p) * matern52(l2), m: 10) @ beta, 0.5)
}
`)
	point := func(n int, seed float64) []float64 {
		q := make([]float64, n)
		for i := range q {
			q[i] = 0.3 * math.Sin(seed*float64(i+1))
		}
		return q
	}
	kmltest.CheckModelGradient(t, in, "per", 1e-6, point(12, 1), point(12, 2))
	kmltest.CheckModelGradient(t, in, "sum", 1e-6, point(16, 1), point(16, 3))
	kmltest.CheckModelGradient(t, in, "prod", 1e-6, point(14, 1), point(14, 5))
}

// TestHsgpPeriodicPosteriorMean: with the hyperparameters fixed the
// posterior of f is Gaussian, so the MAP of the HSGP model's weights (by
// optimize) gives F·β̂ = FFᵀ(FFᵀ + σ²I)⁻¹y, which with FFᵀ ≈ K must be the
// exact latent GP's posterior mean K(K + σ²I)⁻¹y, computed here by a
// dense solve; 40 points of a periodic signal in noise, the kernel
// 0.8·periodic(0.9, 1.3) + 0.3·rbf(1.5), m = 24 and c = 4 (the rbf's
// boundary effect 0.3·k(2(L − S)) = 0.3·exp(−144/4.5) and both parts'
// truncation are negligible: max |FFᵀ − K| is checked below 10⁻⁸).
func TestHsgpPeriodicPosteriorMean(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(uniform(-2, 2), 40, seed: 5)
let y = sin(2 * pi() * x / 1.3) + 0.2 * x + draw(normal(0, 0.3), 40, seed: 6)
let F = hsgp(x, 0.8 * periodic(0.9, 1.3) + 0.3 * rbf(1.5), m: 24, c: 4)
model approx {
  beta[73] ~ normal(0, 1)
  y ~ normal(F @ beta, 0.3)
}
let fit = optimize(approx, seed: 1)
let fh = F @ fit.beta
let K = gram(0.8 * periodic(0.9, 1.3) + 0.3 * rbf(1.5), x)
`)
	k := kmltest.Lookup[*eval.Mat](t, in, "K").M
	f := kmltest.Lookup[*eval.Mat](t, in, "F").M
	var ffT mat.Dense
	ffT.Mul(f, f.T())
	if !mat.EqualApprox(&ffT, k, 1e-8) {
		t.Fatalf("FFᵀ is not K")
	}
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	fh := kmltest.Lookup[*eval.Vec](t, in, "fh").Data
	n := len(y)
	a := mat.DenseCopyOf(k)
	for i := range n {
		a.Set(i, i, a.At(i, i)+0.09)
	}
	var alpha, want mat.VecDense
	if err := alpha.SolveVec(a, mat.NewVecDense(n, y)); err != nil {
		t.Fatal(err)
	}
	want.MulVec(k, &alpha)
	worst := 0.0
	for i := range n {
		worst = max(worst, math.Abs(fh[i]-want.AtVec(i)))
	}
	t.Logf("HSGP MAP mean against the exact posterior mean: max abs difference %.2g", worst)
	if worst > 1e-6 {
		t.Errorf("posterior means differ by %v", worst)
	}
}

// TestHsgpPeriodicMatchesExactGP: NUTS on an HSGP model with a periodic
// kernel whose lengthscale, period and scale are parameters agrees with
// the exact latent GP (gp(), f integrated out) on the same data: 60 points
// of sin(2πx/1.3) + N(0, 0.3²) on [−2, 2], m = 15 harmonics (31 columns;
// the truncated variance is below 10⁻⁸·s² for ℓ ≥ 0.4, where the posterior
// of ell lies). Tolerances as TestHsgpMatchesExactGP's: the posterior means
// of ell, p, s and sigma within 4·√(mcse₁² + mcse₂²) + 0.02, f's posterior
// mean at every x within 0.06 of the exact predictive mean. Seeded; 2
// chains × 300 warm-up + 300 draws. A run: ell 1.512 exact against 1.453
// (tolerance 0.23), p 1.3047 against 1.3052 (0.023), s 0.942 against
// 1.008 (0.33), sigma 0.322 against 0.320 (0.03), f within 0.020.
func TestHsgpPeriodicMatchesExactGP(t *testing.T) {
	fulltest.Require(t, "NUTS on an exact and an HSGP periodic model, about 30 CPU-seconds")
	in, _ := kmltest.Run(t, `
let x = draw(uniform(-2, 2), 60, seed: 9)
let y = sin(2 * pi() * x / 1.3) + draw(normal(0, 0.3), 60, seed: 10)
model exact {
  ell ~ lognormal(0, 0.5)
  p ~ lognormal(log(1.3), 0.1)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  f ~ gp(x, s^2 * periodic(ell, p))
  y ~ normal(f, sigma)
}
model approx {
  ell ~ lognormal(0, 0.5)
  p ~ lognormal(log(1.3), 0.1)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  beta[31] ~ normal(0, 1)
  f = hsgp(x, s^2 * periodic(ell, p), m: 15) @ beta
  y ~ normal(f, sigma)
}
let pe = sample(exact, chains: 2, warmup: 300, draws: 300, seed: 31)
let ph = sample(approx, chains: 2, warmup: 300, draws: 300, seed: 32)
let fe = predict(pe, x, draws: 150).f_mean
`)
	pe := kmltest.Lookup[*infer.Posterior](t, in, "pe")
	ph := kmltest.Lookup[*infer.Posterior](t, in, "ph")
	row := func(p *infer.Posterior, name string) (mean, mcse float64) {
		for _, r := range p.Summary.Params {
			if r.Name == name {
				return r.Mean, r.MCSEMean
			}
		}
		t.Fatalf("no %s in the summary", name)
		return
	}
	for _, name := range []string{"ell", "p", "s", "sigma"} {
		me, se := row(pe, name)
		mh, sh := row(ph, name)
		tol := 4*math.Hypot(se, sh) + 0.02
		t.Logf("%s: exact %.4f (mcse %.4f), hsgp %.4f (mcse %.4f), tolerance %.3f", name, me, se, mh, sh, tol)
		if math.Abs(me-mh) > tol {
			t.Errorf("posterior mean of %s: exact %v, hsgp %v (tolerance %v)", name, me, mh, tol)
		}
	}
	fe := kmltest.Lookup[*eval.Vec](t, in, "fe").Data
	worst := 0.0
	for i := range fe {
		mh, _ := row(ph, fmt.Sprintf("f.%d", i+1))
		worst = max(worst, math.Abs(mh-fe[i]))
	}
	t.Logf("posterior mean of f: max abs difference %.4f over %d points", worst, len(fe))
	if worst > 0.06 {
		t.Errorf("posterior mean of f differs by %v", worst)
	}
}
