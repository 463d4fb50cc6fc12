package gp_test

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

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
		{x + "hsgp(x, periodic(1, 2))", "t.kml:2:9: error: hsgp: periodic(1, 2): the periodic kernel has no spectral density"},
		{x + "hsgp(x, rq(1, 2))", "rational quadratic"},
		{x + "hsgp(x, rbf(1) * matern32(1))", "a product of kernels"},
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
