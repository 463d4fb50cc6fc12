package gp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// mlPriorData is 80 points whose signal depends on the first of two
// inputs, under an ARD kernel: ML-II sends the second lengthscale to
// infinity, type-II MAP keeps it where its prior and the data agree.
const mlPriorData = `
let x = cbind(draw(normal(0, 1), 80, seed: 1), draw(normal(0, 1), 80, seed: 2))
let y = sin(2 * x[:, 1]) + draw(normal(0, 0.2), 80, seed: 3)
model m {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}
let init = {ell: [1, 1], a: 1, sigma: 0.5}
let fm = optimize(m, objective: "ml", init: init)
let fp = optimize(m, objective: "ml_prior", init: init)
let at = {ell: fp.ell, a: fp.a, sigma: fp.sigma}
let lp = logp(m, at)
fn moved(i, k) = logp(m, {ell: fp.ell * ifelse(seq(1, 2) == i, k, 1), a: fp.a, sigma: fp.sigma})
let around = [moved(1, 1.001), moved(1, 0.999), moved(2, 1.001), moved(2, 0.999),
  logp(m, {ell: fp.ell, a: fp.a * 1.001, sigma: fp.sigma}), logp(m, {ell: fp.ell, a: fp.a, sigma: fp.sigma * 0.999})]
let xs = [[0.3, -0.2], [1.1, 0.5]]
let pf = predict(fp, xs)
let pv = predict(m, xs, values: at)
`

// TestGPMLPrior: objective "ml_prior" maximises the GP's log marginal
// likelihood plus the hyperparameters' log priors — its logp is logp(m)
// at its values (priors plus the marginal likelihood, no Jacobians), no
// lower than at points moved by 0.1% in each hyperparameter — and keeps
// the lengthscale of the input the signal ignores finite where ML-II
// sends it off (and warns, pointing at "ml_prior"); predict takes the
// fit as the marginal likelihood's predictive at its values.
func TestGPMLPrior(t *testing.T) {
	in, out := kmltest.Run(t, mlPriorData)
	fm := kmltest.Lookup[*eval.Record](t, in, "fm")
	fp := kmltest.Lookup[*eval.Record](t, in, "fp")
	num := func(r *eval.Record, name string) float64 { return float64(kmltest.Field(t, r, name).(eval.Num)) }
	lp := float64(kmltest.Lookup[eval.Num](t, in, "lp"))
	if got := num(fp, "logp"); math.Abs(got-lp) > 1e-10*(1+math.Abs(lp)) {
		t.Errorf(`"ml_prior" logp %.15g, logp(m) at its values %.15g`, got, lp)
	}
	for i, v := range kmltest.Lookup[*eval.Vec](t, in, "around").Data {
		if v > lp {
			t.Errorf("moved point %d: logp %.15g above the optimum's %.15g", i+1, v, lp)
		}
	}
	em := kmltest.Field(t, fm, "ell").(*eval.Vec).Data
	ep := kmltest.Field(t, fp, "ell").(*eval.Vec).Data
	if !(em[1] > 100 && ep[1] < 20 && ep[1] > 1) {
		t.Errorf("second lengthscale: ML-II %v, type-II MAP %v", em[1], ep[1])
	}
	if w := out.String(); !strings.Contains(w, `its maximum is at infinity`) || !strings.Contains(w, `use objective: "ml_prior"`) {
		t.Errorf("ML-II's warning does not point at ml_prior:\n%s", w)
	}
	if s := kmltest.Field(t, fp, "objective").(eval.Str); s != "ml_prior" {
		t.Errorf("the record's objective is %q", s)
	}
	pf := kmltest.Lookup[*eval.Record](t, in, "pf")
	pv := kmltest.Lookup[*eval.Record](t, in, "pv")
	for _, f := range []string{"f_mean", "f_var"} {
		a, b := kmltest.Field(t, pf, f).(*eval.Vec).Data, kmltest.Field(t, pv, f).(*eval.Vec).Data
		for j := range a {
			if a[j] != b[j] {
				t.Errorf("predict(fit).%s[%d] = %v, predict at its values %v", f, j, a[j], b[j])
			}
		}
	}
}

// TestMLPriorErrors: "ml_prior" is for models with a latent GP, and
// method "svgp" (which maximises an ELBO without priors) refuses it.
func TestMLPriorErrors(t *testing.T) {
	kmltest.ExpectError(t, "let y = [1, 2, 3]\nmodel m {\n  mu ~ normal(0, 1)\n  y ~ normal(mu, 1)\n}\noptimize(m, objective: \"ml_prior\")",
		`objective "ml_prior" is the marginal likelihood of a latent GP's hyperparameters with their priors; this model takes "map" (priors and likelihood) or "ml"`)
	kmltest.ExpectError(t, "let x = [[0], [1], [2], [3]]\nlet y = [0, 1, 1, 0]\nmodel m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell))\n  y ~ bernoulli_logit(f)\n}\noptimize(m, objective: \"ml_prior\", method: \"svgp\", steps: 3)",
		`method "svgp" maximises the ELBO`)
}
