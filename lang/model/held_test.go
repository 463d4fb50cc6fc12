package model_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// TestHeldIsTheDensity checks that the value Compile keeps for a model with
// every parameter held (what logp and loglik return) is, to the bit, what a
// fresh evaluation of the density gives: for priors and observations, the
// observations alone, target +=, a latent GP, and held values outside a
// prior's support (−Inf).
func TestHeldIsTheDensity(t *testing.T) {
	cases := []struct {
		src   string
		fixed map[string]eval.Value
	}{
		{`let y = [0.3, -1.2, 2.2, 0.7]
model m {
  mu ~ normal(0, 2)
  s ~ gamma(2, 1)
  y ~ normal(mu, s)
}`, map[string]eval.Value{"mu": eval.Num(0.4), "s": eval.Num(1.3)}},
		{`let y = [0.3, -1.2, 2.2, 0.7]
model m {
  s ~ gamma(2, 1)
  y ~ normal(0, 1)
}`, map[string]eval.Value{"s": eval.Num(-1)}},
		{`let y = [0.3, -1.2, 2.2]
model m {
  a ~ normal(0, 1)
  target += -0.5 * (y - a)^2
}`, map[string]eval.Value{"a": eval.Num(0.7)}},
		{`let x = [[0.1, 1], [0.5, -1], [0.9, 0.3], [1.4, 0.2], [2.0, -0.4]]
let y = [0.2, 0.9, 1.1, 0.4, -0.3]
model m {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}`, map[string]eval.Value{"ell": &eval.Vec{Data: []float64{0.7, 1.9}}, "a": eval.Num(1.2), "sigma": eval.Num(0.3)}},
	}
	for i, c := range cases {
		for _, terms := range []model.Terms{
			{Prior: true, Likelihood: true},
			{Likelihood: true, Latent: model.Objective{Name: "mlm"}},
		} {
			in, comp := compile(t, c.src, c.fixed, terms)
			held, ok := comp.Held()
			if !ok {
				t.Fatalf("case %d: every parameter is held but Held reports none", i)
			}
			want, err := comp.NewDensity(in.NewThread(nil)).Value(nil)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if math.Float64bits(held) != math.Float64bits(want) {
				t.Errorf("case %d, terms %+v: held %v, a fresh evaluation %v", i, terms, held, want)
			}
		}
	}
	// With a free parameter there is no single value.
	_, comp := compile(t, `let y = [1.0]
model m {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}`, nil, model.Terms{Prior: true, Likelihood: true})
	if _, ok := comp.Held(); ok {
		t.Error("Held reports a value for a model with a free parameter")
	}
}
