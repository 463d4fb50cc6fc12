package gp_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// svgpData is sparseData's regression with optimize's method "svgp" at
// Z = X, held hyperparameters (lr: 0) and one full-batch natural-gradient
// step of size 1, and a small classification fit on minibatches.
const svgpData = `
let x = cbind(draw(normal(0, 1), 60, seed: 1), draw(normal(0, 1), 60, seed: 2))
let y = sin(2 * x[:, 1]) + 0.5 * x[:, 2] + draw(normal(0, 0.2), 60, seed: 3)
model exact {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}
model sv {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: x)
  y ~ normal(f, sigma)
}
let v = {ell: [0.8, 1.3], a: 1.5, sigma: 0.3}
let le = loglik(exact, v)
let xs = [[0.3, 0.2], [1.0, -1.0]]
let pe = predict(exact, xs, values: v)
let fit = optimize(sv, objective: "ml", method: "svgp", init: v, steps: 1, gamma: 1, lr: 0, batch: 100)
let part = optimize(sv, objective: "ml", method: "svgp", init: {a: 1.5}, steps: 1, lr: 0, batch: 100)
let ps = predict(fit, xs)
let lab = y > 0
model clf {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell), inducing: 10, select: "greedy")
  lab ~ bernoulli_logit(f)
}
let c1 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 30, seed: 3)
let c2 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 30, seed: 3)
let pc = predict(c1, xs)
`

// TestGPSVGP: through the language, method "svgp" with Z = X and one
// full-batch step of size 1 gives the exact log marginal likelihood as its
// logp and the exact predictive; a seeded classification fit repeats
// exactly and its record reports the settings.
func TestGPSVGP(t *testing.T) {
	in, _ := kmltest.Run(t, svgpData)
	le := float64(kmltest.Lookup[eval.Num](t, in, "le"))
	fit := kmltest.Lookup[*eval.Record](t, in, "fit")
	if lp := kmltest.Num(t, fit, "logp"); math.Abs(lp-le) > 1e-6 {
		t.Errorf("svgp logp %.10g, exact log marginal %.10g", lp, le)
	}
	if a := kmltest.Num(t, fit, "a"); a != 1.5 {
		t.Errorf("lr: 0 moved a to %v", a)
	}
	// init: giving a alone starts the others at 1.
	part := kmltest.Lookup[*eval.Record](t, in, "part")
	if a, s := kmltest.Num(t, part, "a"), kmltest.Num(t, part, "sigma"); a != 1.5 || s != 1 {
		t.Errorf("init: {a: 1.5} with lr: 0 gave a = %v, sigma = %v", a, s)
	}
	pe := kmltest.Lookup[*eval.Record](t, in, "pe")
	ps := kmltest.Lookup[*eval.Record](t, in, "ps")
	for _, f := range []string{"f_mean", "f_var", "y_mean", "y_var"} {
		a, b := kmltest.Field(t, pe, f).(*eval.Vec).Data, kmltest.Field(t, ps, f).(*eval.Vec).Data
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-6 {
				t.Errorf("predict %s[%d]: svgp %.10g, exact %.10g", f, i, b[i], a[i])
			}
		}
	}
	c1 := kmltest.Lookup[*eval.Record](t, in, "c1")
	c2 := kmltest.Lookup[*eval.Record](t, in, "c2")
	if kmltest.Num(t, c1, "elbo") != kmltest.Num(t, c2, "elbo") || kmltest.Num(t, c1, "ell") != kmltest.Num(t, c2, "ell") {
		t.Errorf("the same seed gave two fits: %v and %v", c1, c2)
	}
	for name, want := range map[string]float64{"inducing": 10, "batch": 20, "steps": 30, "epochs": 10, "gamma": 0.1, "lr": 0.01, "quad": 20} {
		if got := kmltest.Num(t, c1, name); got != want {
			t.Errorf("record's %s = %v, want %v", name, got, want)
		}
	}
	if kmltest.Num(t, c1, "ell") == 1 || kmltest.Num(t, c1, "a") == 1 {
		t.Errorf("the hyperparameters did not move from 1: %v", c1)
	}
	pc := kmltest.Lookup[*eval.Record](t, in, "pc")
	for _, p := range kmltest.Field(t, pc, "prob").(*eval.Vec).Data {
		if !(p > 0 && p < 1) {
			t.Errorf("predicted probability %v", p)
		}
	}
}

// TestGPSVGPErrors: method "svgp" is refused, with the way out, for an
// objective other than "ml", a parameter that is not one of the kernel's
// or the likelihood's own numbers, and the Laplace likelihood; a
// multi-class GP with inducing points is refused Laplace's path, with
// method "svgp" as the way.
func TestGPSVGPErrors(t *testing.T) {
	const head = "let x = [[0], [1], [2], [3]]\nlet y = [0, 1, 1, 0]\n"
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell), inducing: 2)\n  y ~ bernoulli_logit(f)\n}\noptimize(m, method: \"svgp\")",
		`t.kml:8:1: error: optimize: method "svgp" maximises the ELBO over the kernel's and the likelihood's parameters (ML-II): write objective: "ml", not "map"`)
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(2 * ell), inducing: 2)\n  y ~ bernoulli_logit(f)\n}\noptimize(m, objective: \"ml\", method: \"svgp\")",
		`t.kml:8:38: error: optimize: method: "svgp" learns the kernel's hyperparameters and the likelihood's parameters, each a parameter of its own (rbf(ell), normal(f, sigma)); ell is not one: hold it with fix: or use the default L-BFGS`)
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell), inducing: 2)\n  y ~ laplace(f, 1)\n}\noptimize(m, objective: \"ml\", method: \"svgp\")",
		`t.kml:8:38: error: optimize: method: "svgp" takes normal, student_t, bernoulli_logit, poisson_log or neg_binomial_2_log observations (a log-density twice differentiable in f), not laplace; for laplace observations use the default L-BFGS with approx: "ep" or "vb"`)
	// Classes with inducing points: method "svgp", not Laplace's path.
	kmltest.ExpectError(t, "let x = [[0, 1], [1, 0], [2, 2], [3, 1]]\nlet y = [1, 2, 3, 1]\nmodel m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell), classes: 3, inducing: 2)\n  y ~ categorical_logit(f)\n}\noptimize(m, objective: \"ml\", approx: \"laplace\")",
		`t.kml:5:7: error: multi-class GP classification with inducing points (given, or inducing: "auto" above 3000 rows; x has 4) is fitted by optimize(m, objective: "ml", method: "svgp"), and predict takes that fit; Laplace's multi-class path is exact only (inducing: "exact")`)
}

// TestGPSVGPCounts: method "svgp" fits poisson_log and neg_binomial_2_log
// observations: with Z = X, held hyperparameters and full-batch steps
// of size 1 its logp is the ELBO it reports, predict's y_mean and y_var
// are the count's moments under q(f), e^(μ + v/2) and
// e^(μ + v/2) + e^(2μ + 2v) − e^(2μ + v) (+ e^(2μ + 2v)/φ for the negative
// binomial), and with lr > 0 φ is learnt (it moves from its start) and a
// seeded fit repeats exactly.
func TestGPSVGPCounts(t *testing.T) {
	in, _ := kmltest.Run(t, gpCountSrc+`
model psv {
  ell ~ lognormal(1, 0.5)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell), inducing: x)
  n ~ poisson_log(f)
}
model nsv {
  ell ~ lognormal(1, 0.5)
  a ~ lognormal(0, 1)
  phi ~ lognormal(1, 1)
  f ~ gp(x, a * rbf(ell), inducing: x)
  n ~ neg_binomial_2_log(f, phi)
}
let xs = [2.5, 9]
let pf = optimize(psv, objective: "ml", method: "svgp", init: {ell: 1.5, a: 2}, steps: 12, gamma: 1, lr: 0)
let pp = predict(pf, xs)
let n1 = optimize(nsv, objective: "ml", method: "svgp", init: {ell: 1.5, a: 2, phi: 3}, steps: 40, gamma: 0.5, lr: 0.05, seed: 2)
let n2 = optimize(nsv, objective: "ml", method: "svgp", init: {ell: 1.5, a: 2, phi: 3}, steps: 40, gamma: 0.5, lr: 0.05, seed: 2)
let np = predict(n1, xs)
`)
	pf := kmltest.Lookup[*eval.Record](t, in, "pf")
	if lp, e := kmltest.Num(t, pf, "logp"), kmltest.Num(t, pf, "elbo"); lp != e || !(lp < 0) {
		t.Errorf("poisson svgp: logp %v, elbo %v", lp, e)
	}
	n1 := kmltest.Lookup[*eval.Record](t, in, "n1")
	n2 := kmltest.Lookup[*eval.Record](t, in, "n2")
	phi := kmltest.Num(t, n1, "phi")
	if phi == 3 || !(phi > 0) {
		t.Errorf("neg_binomial_2_log svgp: phi %v did not move from 3", phi)
	}
	if kmltest.Num(t, n1, "elbo") != kmltest.Num(t, n2, "elbo") || phi != kmltest.Num(t, n2, "phi") {
		t.Errorf("the same seed gave two fits: %v and %v", n1, n2)
	}
	for _, c := range []struct {
		name string
		phi  float64
	}{{"pp", math.Inf(1)}, {"np", phi}} {
		p := kmltest.Lookup[*eval.Record](t, in, c.name)
		fm, _ := eval.ToFloats(kmltest.Field(t, p, "f_mean"))
		fv, _ := eval.ToFloats(kmltest.Field(t, p, "f_var"))
		ym, _ := eval.ToFloats(kmltest.Field(t, p, "y_mean"))
		yv, _ := eval.ToFloats(kmltest.Field(t, p, "y_var"))
		for i := range fm {
			e1 := math.Exp(fm[i] + fv[i]/2)
			e2 := math.Exp(2*fm[i] + 2*fv[i])
			wv := e1 + e2 - e1*e1 + e2/c.phi
			if !(fv[i] > 0) || math.Abs(ym[i]-e1) > 1e-12*e1 || math.Abs(yv[i]-wv) > 1e-10*wv {
				t.Errorf("%s point %d: f ~ N(%v, %v), y_mean %v y_var %v, want %v %v", c.name, i, fm[i], fv[i], ym[i], yv[i], e1, wv)
			}
		}
	}
}

// TestGPSVGPClasses: method "svgp" fits gp(X, KERNEL, classes: C)
// observed through categorical_logit by runtime/gp's SVGPMulti: with held
// hyperparameters its elbo and predict's latent means equal a direct
// SVGPMulti fit with the same inducing points, settings and seed (labels
// 1..C read as 0..C−1); predict's record has each row of prob summing to
// 1, class its most probable column, approx "svgp" and draws; the
// record reports draws (the base normals), not quad; with lr > 0 the
// kernel's parameters move.
func TestGPSVGPClasses(t *testing.T) {
	in, _ := kmltest.Run(t, gpMultiSrc+`
model mcs {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell), classes: 3, inducing: x)
  c3 ~ categorical_logit(f)
}
let fit = optimize(mcs, objective: "ml", method: "svgp", init: {ell: 0.7, a: 2}, steps: 20, gamma: 0.5, lr: 0, seed: 1)
let pr = predict(fit, [[0.5, 0.5], [2.0, 0.0]], draws: 400, seed: 4)
let lfit = optimize(mcs, objective: "ml", method: "svgp", steps: 30, gamma: 0.5, lr: 0.05, seed: 1)
`)
	fit := kmltest.Lookup[*eval.Record](t, in, "fit")
	rbf, _ := kernels.NewRBF([]float64{0.7})
	k, _ := kernels.NewScaled(2, rbf)
	s, err := rgp.NewSVGPMulti(k, gpMultiX(), 3, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Fit(context.Background(), gpMultiX(), []int{0, 0, 1, 2, 1, 1, 2, 2, 0}, rgp.SVGPSettings{Steps: 20, Gamma: 0.5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e := kmltest.Num(t, fit, "elbo"); math.Abs(e-res.ELBO) > 1e-9*(1+math.Abs(e)) {
		t.Errorf("elbo %.12g, a direct SVGPMulti fit %.12g", e, res.ELBO)
	}
	if d := kmltest.Num(t, fit, "draws"); d != rgp.DefaultSoftmaxDraws {
		t.Errorf("record's draws = %v", d)
	}
	if _, ok := fit.Attr("quad"); ok {
		t.Errorf("a softmax fit's record reports quad: %v", fit)
	}
	fm, _, err := s.Predict(mat.NewDense(2, 2, []float64{0.5, 0.5, 2.0, 0.0}))
	if err != nil {
		t.Fatal(err)
	}
	pr := kmltest.Lookup[*eval.Record](t, in, "pr")
	got := kmltest.Field(t, pr, "f_mean").(*eval.Mat).M
	prob := kmltest.Field(t, pr, "prob").(*eval.Mat).M
	class, _ := eval.ToFloats(kmltest.Field(t, pr, "class"))
	for j := range 2 {
		sum, best := 0.0, 0
		for c := range 3 {
			if v := got.At(j, c); math.Abs(v-fm[c][j]) > 1e-9 {
				t.Errorf("f_mean[%d, %d] %.10g, direct %.10g", j, c, v, fm[c][j])
			}
			sum += prob.At(j, c)
			if prob.At(j, c) > prob.At(j, best) {
				best = c
			}
		}
		if math.Abs(sum-1) > 1e-12 || class[j] != float64(best+1) {
			t.Errorf("point %d: prob sums to %v, class %v, most probable %d", j, sum, class[j], best+1)
		}
	}
	if a := kmltest.Field(t, pr, "approx"); a != eval.Str("svgp") {
		t.Errorf("predict's approx %v", a)
	}
	lfit := kmltest.Lookup[*eval.Record](t, in, "lfit")
	if kmltest.Num(t, lfit, "ell") == 1 || kmltest.Num(t, lfit, "a") == 1 {
		t.Errorf("the hyperparameters did not move from 1: %v", lfit)
	}
}

// TestGPSVGPResume: optimize(..., resume: fit) continues a fit by method
// "svgp": 12 steps then 18 resumed give what 30 steps at once give, to
// the bit (every parameter, logp, and predict's means), total_steps
// counts all 30, and the fit resumed from is left as it was (its values
// equal a second 12-step fit's). resume: is refused for another model,
// for a fit by L-BFGS, with method "lbfgs", and with another seed.
func TestGPSVGPResume(t *testing.T) {
	in, _ := kmltest.Run(t, svgpData+`
let r12 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 12, seed: 3)
let r30 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 18, seed: 3, resume: r12)
let w30 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 30, seed: 3)
let again12 = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 12, seed: 3)
let pr = predict(r30, xs)
let pw = predict(w30, xs)
`)
	r30, w30 := kmltest.Lookup[*eval.Record](t, in, "r30"), kmltest.Lookup[*eval.Record](t, in, "w30")
	for _, f := range []string{"ell", "a", "logp"} {
		if a, b := kmltest.Num(t, r30, f), kmltest.Num(t, w30, f); a != b {
			t.Errorf("%s: %v after 12 + 18 steps, %v after 30", f, a, b)
		}
	}
	if n := kmltest.Num(t, r30, "total_steps"); n != 30 {
		t.Errorf("total_steps %v, want 30", n)
	}
	pr, pw := kmltest.Lookup[*eval.Record](t, in, "pr"), kmltest.Lookup[*eval.Record](t, in, "pw")
	a, b := kmltest.Field(t, pr, "f_mean").(*eval.Vec).Data, kmltest.Field(t, pw, "f_mean").(*eval.Vec).Data
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("predict's f_mean[%d]: %v resumed, %v at once", i, a[i], b[i])
		}
	}
	r12, again := kmltest.Lookup[*eval.Record](t, in, "r12"), kmltest.Lookup[*eval.Record](t, in, "again12")
	for _, f := range []string{"ell", "a", "logp"} {
		if a, b := kmltest.Num(t, r12, f), kmltest.Num(t, again, f); a != b {
			t.Errorf("the fit resumed from changed: %s %v, a fresh one %v", f, a, b)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{`let o = optimize(sv, objective: "ml", method: "svgp", steps: 1, resume: r12)`, "resume: takes a fit of model sv, got one of model clf"},
		{`let o = optimize(clf, objective: "ml", method: "svgp", steps: 1, resume: {a: 1})`, `resume: takes the result of optimize(..., method: "svgp")`},
		{`let o = optimize(clf, objective: "ml", steps: 1, resume: r12)`, `resume: continues a fit by method "svgp"`},
		{`let o = optimize(clf, objective: "ml", method: "svgp", batch: 20, steps: 1, seed: 4, resume: r12)`, "optimize: the SVGP fit cannot be resumed: a resumed fit needs the rows, batch, seed"},
	} {
		src := svgpData + "\nlet r12 = optimize(clf, objective: \"ml\", method: \"svgp\", batch: 20, steps: 12, seed: 3)\n" + c.src + "\n"
		if got := kmltest.RunIn(t, dir, src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.src, got, c.want)
		}
	}
}
