package gp_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
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
// or the likelihood's own numbers, and the Laplace likelihood.
func TestGPSVGPErrors(t *testing.T) {
	const head = "let x = [[0], [1], [2], [3]]\nlet y = [0, 1, 1, 0]\n"
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell), inducing: 2)\n  y ~ bernoulli_logit(f)\n}\noptimize(m, method: \"svgp\")",
		`t.kml:8:1: error: optimize: method "svgp" maximises the ELBO over the kernel's and the likelihood's parameters (ML-II): write objective: "ml", not "map"`)
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(2 * ell), inducing: 2)\n  y ~ bernoulli_logit(f)\n}\noptimize(m, objective: \"ml\", method: \"svgp\")",
		`t.kml:8:38: error: optimize: method: "svgp" learns the kernel's hyperparameters and the likelihood's parameters, each a parameter of its own (rbf(ell), normal(f, sigma)); ell is not one: hold it with fix: or use the default L-BFGS`)
	kmltest.ExpectError(t, head+"model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell), inducing: 2)\n  y ~ laplace(f, 1)\n}\noptimize(m, objective: \"ml\", method: \"svgp\")",
		`t.kml:8:38: error: optimize: method: "svgp" takes normal, student_t or bernoulli_logit observations (a log-density twice differentiable in f), not laplace`)
}
