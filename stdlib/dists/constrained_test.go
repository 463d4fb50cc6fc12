package dists_test

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// within4MCSE checks a posterior mean against its known value.
func within4MCSE(t *testing.T, s *hmc.Summary, name string, want float64) {
	t.Helper()
	for _, p := range s.Params {
		if p.Name == name {
			if math.Abs(p.Mean-want) > 4*p.MCSEMean {
				t.Errorf("%s: mean %v ± %v (MCSE), want %v", name, p.Mean, p.MCSEMean, want)
			}
			return
		}
	}
	t.Errorf("the summary has no %s", name)
}

// TestDirichletPrior: theta[3] ~ dirichlet([2, 3, 5]) alone samples the
// Dirichlet: each mean is αₖ/Σα, and each variance αₖ(α₀ − αₖ)/(α₀²(α₀ + 1))
// is the mean of the derived (θₖ − mean)²; every draw is a simplex.
func TestDirichletPrior(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  theta[3] ~ dirichlet([2, 3, 5])
  v1 = (theta[1] - 0.2) * (theta[1] - 0.2)
  v3 = (theta[3] - 0.5) * (theta[3] - 0.5)
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 81)
let s = summary(post)
let th = post.theta
`)
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	for k, want := range []float64{0.2, 0.3, 0.5} {
		within4MCSE(t, s, []string{"theta.1", "theta.2", "theta.3"}[k], want)
	}
	within4MCSE(t, s, "v1", 2*8/(100.0*11))
	within4MCSE(t, s, "v3", 5*5/(100.0*11))
	th := kmltest.Lookup[*eval.Mat](t, in, "th")
	r, c := th.Dims()
	if c != 3 || r != 4000 {
		t.Fatalf("post.theta is %d×%d, want 4000×3", r, c)
	}
	for i := 0; i < r; i++ {
		row := th.M.RawRowView(i)
		if math.Abs(row[0]+row[1]+row[2]-1) > 1e-12 || row[0] <= 0 || row[1] <= 0 || row[2] <= 0 {
			t.Fatalf("draw %d is not a simplex: %v", i, row)
		}
	}
}

// TestDirichletConjugate: with counts n observed through
// categorical_logit(log(theta)), the posterior is dirichlet(alpha + n); the
// same counts through target += sum(n * log(theta)) give the same posterior.
func TestDirichletConjugate(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3]
let n = [2, 4, 9]
model a {
  theta[3] ~ dirichlet([1, 2, 1])
  y ~ categorical_logit(log(theta))
}
model b {
  theta[3] ~ dirichlet([1, 2, 1])
  target += sum(n * log(theta))
}
let sa = summary(sample(a, chains: 4, warmup: 400, draws: 800, seed: 82))
let sb = summary(sample(b, chains: 4, warmup: 400, draws: 800, seed: 83))
`)
	post := []float64{3, 6, 10} // alpha + n
	for _, name := range []string{"sa", "sb"} {
		s := kmltest.Lookup[*infer.SummaryVal](t, in, name).S
		for k, a := range post {
			within4MCSE(t, s, []string{"theta.1", "theta.2", "theta.3"}[k], a/19)
		}
	}
	kmltest.CheckModelGradient(t, in, "a", 1e-6, []float64{0.3, -0.4})
}

// TestLKJPrior: with L[2] ~ lkj_corr_cholesky(2) the correlation L[2, 1] is
// 2·Beta(2, 2) − 1: mean 0 and variance 1/(2η + 1) = 1/5; L[1, 1] = 1,
// L[1, 2] = 0 and L[2, 2] = √(1 − L[2, 1]²) at every draw.
func TestLKJPrior(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  L[2] ~ lkj_corr_cholesky(2)
  r2 = L[2, 1] * L[2, 1]
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 84)
let s = summary(post)
let l = post.L
`)
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	within4MCSE(t, s, "L.2.1", 0)
	within4MCSE(t, s, "r2", 0.2)
	l := kmltest.Lookup[*eval.Mat](t, in, "l")
	r, c := l.Dims()
	if c != 4 {
		t.Fatalf("post.L has %d columns, want 4", c)
	}
	for i := 0; i < r; i++ {
		// Column by column: L11, L21, L12, L22.
		x := l.M.RawRowView(i)
		if x[0] != 1 || x[2] != 0 || math.Abs(x[3]-math.Sqrt(1-x[1]*x[1])) > 1e-12 {
			t.Fatalf("draw %d is not a Cholesky factor of a correlation matrix: %v", i, x)
		}
	}
}

// TestConstrainedGradients: the log density of models using a simplex and a
// Cholesky factor, with concentrations and eta that depend on parameters
// and Dirichlet observations, differentiates as finite differences say.
func TestConstrainedGradients(t *testing.T) {
	in, _ := kmltest.Run(t, `
let obs = [[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]
let y = [0.4, -0.2, 0.9]
model m {
  a ~ gamma(2, 1)
  theta[3] ~ dirichlet(a * [1, 2, 3])
  obs ~ dirichlet(a * theta * 3)
  eta ~ gamma(2, 1)
  L[3] ~ lkj_corr_cholesky(eta)
  target += logpdf(normal(0.3, 0.5), L[3, 2]) + logpdf(normal(0, 1), L[2, 1])
  y ~ normal(L[3, :], 0.5)
}
`)
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.2, 0.3, -0.5, 0.1, 0.4, -0.7, 1.1}, []float64{-0.4, -1.2, 0.8, 0.5, -0.3, 0.6, -0.2})
}

// TestConstrainedOutput: names, values and the CmdStan header of a simplex
// and a matrix parameter; logp and init: at values in the support, and
// clear errors at values outside it.
func TestConstrainedOutput(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := `
model m {
  theta[3] ~ dirichlet([2, 3, 5])
  L[2] ~ lkj_corr_cholesky(1.5)
}
let post = sample(m, chains: 1, warmup: 100, draws: 50, seed: 85, init: {theta: [0.2, 0.3, 0.5], L: [[1, 0], [0.6, 0.8]]})
save(post, to: "out/draws.csv", format: "cmdstan")
let lp = logp(m, {theta: [0.2, 0.3, 0.5], L: [[1, 0], [0.6, 0.8]]})
let opt = optimize(m)
`
	if out := kmltest.RunIn(t, dir, src); out != "" {
		t.Fatal(out)
	}
	f := kmltest.ReadStanCSV(t, filepath.Join(dir, "out", "draws_1.csv"))
	want := "theta.1,theta.2,theta.3,L.1.1,L.2.1,L.1.2,L.2.2"
	if got := strings.Join(f.Columns[len(infer.SamplerColumns):], ","); got != want {
		t.Errorf("CmdStan header %q, want %q", got, want)
	}
	if len(f.Metric) != 1 || len(f.Metric[0]) != 3 {
		t.Errorf("inverse metric %v, want 3 free reals (2 for theta, 1 for L)", f.Metric)
	}
	in, _ := kmltest.Run(t, strings.Replace(src, `save(post, to: "out/draws.csv", format: "cmdstan")`, "", 1))
	// logp = log Dirichlet(2, 3, 5) at (0.2, 0.3, 0.5) + log LKJ(1.5) at r = 0.6,
	// the latter the scaled Beta(1.5, 1.5): ((1 − r²)/4)^{0.5} / (2·B(1.5, 1.5)).
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	dir3 := lg(10) - lg(2) - lg(3) - lg(5) + math.Log(0.2) + 2*math.Log(0.3) + 4*math.Log(0.5)
	lkj := 0.5*math.Log((1-0.36)/4) - math.Log(2) - (2*lg(1.5) - lg(3))
	if lp := float64(kmltest.Lookup[eval.Num](t, in, "lp")); math.Abs(lp-(dir3+lkj)) > 1e-10 {
		t.Errorf("logp = %v, want %v", lp, dir3+lkj)
	}
	// The mode: (α − 1)/(α₀ − K) for theta; the identity for LKJ(η > 1).
	opt := kmltest.Lookup[*eval.Record](t, in, "opt")
	th, _ := opt.Attr("theta")
	for k, want := range []float64{1.0 / 7, 2.0 / 7, 4.0 / 7} {
		if got := th.(*eval.Vec).Data[k]; math.Abs(got-want) > 1e-4 {
			t.Errorf("optimize: theta.%d = %v, want %v", k+1, got, want)
		}
	}
	l, _ := opt.Attr("L")
	if lm, ok := l.(*eval.Mat); !ok || math.Abs(lm.M.At(1, 0)) > 1e-4 || lm.M.At(0, 1) != 0 {
		t.Errorf("optimize: L = %v, want the 2×2 identity", l)
	}
	for _, c := range []struct{ src, want string }{
		{"model m {\n  theta[3] ~ dirichlet([1, 1, 1])\n}\nprint(sample(m, init: {theta: [0.5, 0.6, 0.1]}, draws: 5))", "theta is a simplex: its elements must be positive and sum to 1"},
		{"model m {\n  theta[3] ~ dirichlet([1, 1, 1])\n}\nprint(logp(m, {theta: [0.5, 0.5]}))", "theta is a simplex of 3 elements"},
		{"model m {\n  theta ~ dirichlet([1, 1, 1])\n}\nprint(logp(m, {theta: 1}))", "declare theta[3] ~ dirichlet"},
		{"model m {\n  theta[4] ~ dirichlet([1, 1, 1])\n}\nprint(sample(m, draws: 5))", "has 3 elements but theta has 4"},
		{"model m {\n  L[2] ~ lkj_corr_cholesky(2)\n  s ~ normal(0, 1)\n}\nprint(optimize(m, fix: {L: [[1, 0], [0.6, 0.7]]}))", "row 2 has squared length 0.85"},
		{"model m {\n  L[2] ~ lkj_corr_cholesky(2)\n}\nprint(logp(m, {L: [[1, 0.1], [0.6, 0.8]]}))", "L must be lower triangular"},
		{"model m {\n  L[2] ~ lkj_corr_cholesky(2)\n}\nprint(logp(m, {L: [0.6, 0.8]}))", "Cholesky factor of a 2×2 correlation matrix"},
		{"model m {\n  L[1] ~ lkj_corr_cholesky(2)\n}\nprint(sample(m, draws: 5))", "needs K ≥ 2"},
		{"model m {\n  L[3] ~ lkj_corr_cholesky(2, K: 2)\n}\nprint(sample(m, draws: 5))", "is for 2×2 factors but L is declared L[3]"},
		{"print(draw(lkj_corr_cholesky(2)))", "give the size to draw"},
		{"print(dirichlet([1, -1]))", "alpha must be positive"},
		{"print(lkj_corr_cholesky(0))", "eta must be positive"},
	} {
		if got := kmltest.RunIn(t, t.TempDir(), c.src); !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %q", c.src, got, c.want)
		}
	}
}

// TestConstrainedDrawAndLogPDF: draw and logpdf outside a model agree with
// the closed forms: a draw is a simplex (an n×K matrix of them with n), an
// LKJ draw a valid factor; logpdf is −Inf off the support.
func TestConstrainedDrawAndLogPDF(t *testing.T) {
	in, _ := kmltest.Run(t, `
let d = draw(dirichlet([1, 2, 3]), 5, seed: 1)
let one = draw(dirichlet([1, 2, 3]), seed: 1)
let l = draw(lkj_corr_cholesky(2, K: 3), seed: 2)
let ls = draw(lkj_corr_cholesky(2, K: 3), 4, seed: 2)
let lp = logpdf(dirichlet([1, 2, 3]), [[0.2, 0.3, 0.5], [0.2, 0.3, 0.6]])
let lk = logpdf(lkj_corr_cholesky(1, K: 2), [[1, 0], [0.6, 0.8]])
let lkbad = logpdf(lkj_corr_cholesky(1), [[1, 0], [0.6, 0.9]])
let m = mean(dirichlet([1, 2, 5]))
`)
	d := kmltest.Lookup[*eval.Mat](t, in, "d")
	if r, c := d.Dims(); r != 5 || c != 3 {
		t.Fatalf("draw(d, 5) is %d×%d", r, c)
	}
	for i := 0; i < 5; i++ {
		x := d.M.RawRowView(i)
		if math.Abs(x[0]+x[1]+x[2]-1) > 1e-12 {
			t.Errorf("draw %d = %v is not a simplex", i, x)
		}
	}
	if one := kmltest.Lookup[*eval.Vec](t, in, "one"); len(one.Data) != 3 {
		t.Errorf("draw(d) = %v, want a simplex of 3", one)
	}
	l := kmltest.Lookup[*eval.Mat](t, in, "l")
	for i := 0; i < 3; i++ {
		n := 0.0
		for j := 0; j < 3; j++ {
			n += l.M.At(i, j) * l.M.At(i, j)
		}
		if math.Abs(n-1) > 1e-12 || l.M.At(0, 2) != 0 {
			t.Errorf("LKJ draw %v is not a Cholesky factor of a correlation matrix", l)
		}
	}
	if ls := kmltest.Lookup[*eval.List](t, in, "ls"); len(ls.Elems) != 4 {
		t.Errorf("draw(lkj, 4) gave %d factors", len(ls.Elems))
	}
	lp := kmltest.Lookup[*eval.Vec](t, in, "lp")
	want := math.Log(120.0/2) + math.Log(0.3) + 2*math.Log(0.5) // Γ(6)/(Γ(1)Γ(2)Γ(3))·x₂·x₃²
	if math.Abs(lp.Data[0]-want) > 1e-12 || !math.IsInf(lp.Data[1], -1) {
		t.Errorf("logpdf = %v, want [%v, -Inf]", lp.Data, want)
	}
	if lk := float64(kmltest.Lookup[eval.Num](t, in, "lk")); math.Abs(lk-math.Log(0.5)) > 1e-12 {
		t.Errorf("LKJ(1) for K = 2 is uniform on (−1, 1): logpdf %v, want log ½", lk)
	}
	if lk := float64(kmltest.Lookup[eval.Num](t, in, "lkbad")); !math.IsInf(lk, -1) {
		t.Errorf("logpdf off the support = %v, want -Inf", lk)
	}
	if m := kmltest.Lookup[*eval.Vec](t, in, "m"); math.Abs(m.Data[2]-0.625) > 1e-15 {
		t.Errorf("mean(dirichlet([1, 2, 5])) = %v", m)
	}
}

// TestConstrainedGeneratedAndProfile: a generated block sees a Cholesky
// factor as a plain matrix (its draws match post.L's), and profile
// maximises over a simplex and a factor while a scalar follows its grid.
func TestConstrainedGeneratedAndProfile(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1, 2, 2, 3, 3, 3]
model m {
  s ~ gamma(2, 2)
  theta[3] ~ dirichlet([1, 1, 1])
  L[2] ~ lkj_corr_cholesky(2)
  y ~ categorical_logit(s * log(theta))
  generated { c = L[2, 1] }
}
let post = sample(m, chains: 1, warmup: 100, draws: 50, seed: 86)
let c = post.c
let l = post.L
let p = profile(m, s: [0.5, 1, 2])
`)
	c := kmltest.Lookup[*eval.Vec](t, in, "c")
	l := kmltest.Lookup[*eval.Mat](t, in, "l")
	for i, x := range c.Data {
		if x != l.M.At(i, 1) {
			t.Fatalf("draw %d: generated L[2, 1] = %v, post.L gives %v", i, x, l.M.At(i, 1))
		}
	}
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	lp, _ := p.Attr("logp")
	for i, x := range lp.(*eval.Vec).Data {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			t.Errorf("profile at grid point %d: logp %v", i+1, x)
		}
	}
	// At s = 1 the profile maximises the posterior of theta (Dirichlet(1, 1, 1)
	// prior, counts 1, 2, 3: mode at the frequencies) and L (mode at the
	// identity); its value is the log density there, computed by hand.
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	want := math.Log(2*2) - 2*1 + // gamma(2, 2) at 1: 2²·1·e^{-2}/Γ(2)
		lg(3) + // dirichlet(1, 1, 1) is 2 on the simplex
		math.Log(1.0/6) + 2*math.Log(2.0/6) + 3*math.Log(3.0/6) + // the counts
		-math.Ln2 - (2*lg(2) - lg(4)) + math.Log(0.25) // LKJ(2) at r = 0: ((1 − r²)/4)/(2·B(2, 2))
	if got := lp.(*eval.Vec).Data[1]; math.Abs(got-want) > 1e-6 {
		t.Errorf("profile at s = 1: %v, want %v", got, want)
	}
}
