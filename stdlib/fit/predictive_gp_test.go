package fit_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// gpModels are a small GP regression and a GP classifier on the same
// twelve inputs.
const gpModels = `
let X = [[0.0], [0.3], [0.6], [0.9], [1.2], [1.5], [1.8], [2.1], [2.4], [2.7], [3.0], [3.3]]
let y = [0.1, 0.4, 0.8, 0.9, 0.7, 0.2, 0.0, -0.3, -0.5, -0.2, 0.1, 0.3]
let z = [0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1]
model reg {
  ell ~ lognormal(0, 0.5)
  s ~ lognormal(-1, 0.3)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, s)
}
model cls {
  a ~ lognormal(0, 0.5)
  f ~ gp(X, a * rbf(0.8))
  z ~ bernoulli_logit(f)
}
`

// TestPredictiveGP: prior_predictive and ppc of GP models report f's
// draws at the inputs (draws × 12) and what they were drawn from: the
// prior; GP regression's exact posterior; the q(f) of the approximation
// the classifier was sampled with. A seed gives the same draws.
func TestPredictiveGP(t *testing.T) {
	in, _ := kmltest.Run(t, gpModels+`
let p = prior_predictive(reg, draws: 30, seed: 1)
let p2 = prior_predictive(reg, draws: 30, seed: 1)
let post = sample(reg, chains: 1, warmup: 100, draws: 100, seed: 2)
let c = ppc(post, draws: 20, seed: 3)
let postc = sample(cls, chains: 1, warmup: 100, draws: 100, seed: 2, approx: "laplace")
let cc = ppc(postc, draws: 20, seed: 3)
let pc = prior_predictive(cls, draws: 20, seed: 4)
`)
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	if p.String() != kmltest.Lookup[*eval.Record](t, in, "p2").String() {
		t.Error("the same seed gave different draws")
	}
	for _, c := range []struct {
		name, method string
		draws        int
	}{{"p", "prior", 30}, {"c", "exact", 20}, {"cc", "laplace", 20}, {"pc", "prior", 20}} {
		rec := kmltest.Lookup[*eval.Record](t, in, c.name)
		f := kmltest.Field(t, kmltest.Field(t, rec, "latent").(*eval.Record), "f").(*eval.Mat)
		if r, k := f.Dims(); r != c.draws || k != 12 {
			t.Errorf("%s: latent.f is %d×%d, want %d×12", c.name, r, k, c.draws)
		}
		how := kmltest.Field(t, kmltest.Field(t, rec, "latent_method").(*eval.Record), "f")
		if how != eval.Str(c.method) {
			t.Errorf("%s: latent_method.f = %v, want %q", c.name, how, c.method)
		}
	}
	zrep := kmltest.Field(t, kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "cc"), "yrep").(*eval.Record), "z").(*eval.Mat)
	r, k := zrep.Dims()
	for i := range r {
		for j := range k {
			if v := zrep.M.At(i, j); v != 0 && v != 1 {
				t.Fatalf("replicated label %v, want 0 or 1", v)
			}
		}
	}
	kmltest.ExpectError(t, `
let X = [[0.0], [1.0], [2.0]]
let c = [1, 2, 1]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), classes: 2)
  c ~ categorical_logit(f)
}
let a = prior_predictive(m, seed: 1)`, "t.kml:7:5: error: cannot draw c: it observes a multi-class latent GP")
}
