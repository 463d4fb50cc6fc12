package fit_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// column is column j of a matrix field of rec.
func column(t *testing.T, rec *eval.Record, field, name string, j int) []float64 {
	t.Helper()
	sub := kmltest.Field(t, rec, field).(*eval.Record)
	m := kmltest.Field(t, sub, name).(*eval.Mat)
	r, _ := m.Dims()
	out := make([]float64, r)
	for i := range out {
		out[i] = m.M.At(i, j)
	}
	return out
}

func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return m, v / float64(len(xs)-1)
}

// TestPPCConjugateNormal: with y_i ~ N(mu, 1) and mu ~ N(0, 10²), the
// posterior is N(m, v) with v = 1/(n + 1/100) and m = v Σy, and the
// posterior predictive of a replicate y_rep_i is N(m, v + 1). ppc of 4000
// NUTS draws (seeded) must match: the tolerances are about 4 Monte Carlo
// standard errors, 0.07 for the mean (sd 1.05/√4000 = 0.017, plus mu's
// own MCSE ≈ 0.008) and 0.1 for the variance (1.1·√(2/4000) = 0.025).
func TestPPCConjugateNormal(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.8, 1.9, 1.2, 0.4, 1.6, 2.2, 0.9, 1.4, 1.1, 1.5]
model m {
  mu ~ normal(0, 10)
  y ~ normal(mu, 1)
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 36)
let check = ppc(post, seed: 7)
let thin = ppc(post, draws: 100, seed: 7)
`)
	check := kmltest.Lookup[*eval.Record](t, in, "check")
	if _, ok := check.Of().(*infer.Predictive); !ok {
		t.Fatal("ppc's record does not keep its Predictive for plot")
	}
	n, sum := 10.0, 13.0
	v := 1 / (n + 1/100.0)
	m := v * sum
	for j := range 3 {
		gm, gv := meanVar(column(t, check, "yrep", "y", j))
		t.Logf("y_rep[%d]: mean %.4f (closed form %.4f), var %.4f (closed form %.4f)", j+1, gm, m, gv, v+1)
		if math.Abs(gm-m) > 0.07 || math.Abs(gv-(v+1)) > 0.1 {
			t.Errorf("y_rep[%d]: mean %.4f var %.4f, want %.4f and %.4f", j+1, gm, gv, m, v+1)
		}
	}
	if kmltest.Num(t, check, "draws") != 4000 {
		t.Errorf("ppc used %v draws, want all 4000", kmltest.Num(t, check, "draws"))
	}
	thin := kmltest.Lookup[*eval.Record](t, in, "thin")
	if r, c := kmltest.Field(t, kmltest.Field(t, thin, "yrep").(*eval.Record), "y").(*eval.Mat).Dims(); r != 100 || c != 10 {
		t.Errorf("thinned yrep is %d×%d, want 100×10", r, c)
	}
}

// TestPriorPredictiveBuiltin: the builtin's record has each parameter's
// draws and the replicates shaped draws × n, the same seed gives the same
// draws, and a model that cannot be drawn is refused at its statement.
func TestPriorPredictiveBuiltin(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1.0, 2.0, 3.0]
model m {
  mu ~ normal(0, 1)
  w[2] ~ normal(mu, 1)
  y ~ normal(mu, 1)
}
let a = prior_predictive(m, draws: 50, seed: 3)
let b = prior_predictive(m, draws: 50, seed: 3)
`)
	a := kmltest.Lookup[*eval.Record](t, in, "a")
	b := kmltest.Lookup[*eval.Record](t, in, "b")
	if a.String() != b.String() {
		t.Error("the same seed gave different draws")
	}
	params := kmltest.Field(t, a, "params").(*eval.Record)
	if v := kmltest.Field(t, params, "mu").(*eval.Vec); len(v.Data) != 50 {
		t.Errorf("mu has %d draws, want 50", len(v.Data))
	}
	if r, c := kmltest.Field(t, params, "w").(*eval.Mat).Dims(); r != 50 || c != 2 {
		t.Errorf("w's draws are %d×%d, want 50×2", r, c)
	}
	if r, c := kmltest.Field(t, kmltest.Field(t, a, "yrep").(*eval.Record), "y").(*eval.Mat).Dims(); r != 50 || c != 3 {
		t.Errorf("yrep.y is %d×%d, want 50×3", r, c)
	}
	kmltest.ExpectError(t, `
let y = [1.0, 2.0]
model m {
  mu ~ normal(0, 1)
  target += -mu
  y ~ normal(mu, 1)
}
let a = prior_predictive(m, seed: 1)`, "t.kml:5:10: error: cannot draw from a model with `target +=`")
	kmltest.ExpectError(t, `
let y = [1.0, 2.0]
model m {
  mu ~ normal(0, 1)
  target += -mu
  y ~ normal(mu, 1)
}
let post = sample(m, chains: 1, warmup: 100, draws: 100, seed: 1)
let a = ppc(post, seed: 1)`, "note: in the model's forward run for the call at t.kml:9:9")
	kmltest.ExpectError(t, `
let y = [1.0, 2.0]
model m {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
let a = prior_predictive(m, draws: 0)`, "t.kml:7:36: error: prior_predictive: draws")
}

// TestPPCHeldAndFlat: ppc reads a held parameter's fix: value (sigma =
// 0.001, so each replicate is its draw's mu within 0.01) and a flat()
// prior does not matter, since no prior is drawn.
func TestPPCHeldAndFlat(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.5, 1.5]
model m {
  mu ~ flat()
  sigma ~ exponential(1)
  y ~ normal(mu, sigma)
}
let post = sample(m, chains: 1, warmup: 100, draws: 50, seed: 2, fix: {sigma: 0.001})
let check = ppc(post, seed: 3)
`)
	check := kmltest.Lookup[*eval.Record](t, in, "check")
	mu := kmltest.Field(t, kmltest.Field(t, check, "params").(*eval.Record), "mu").(*eval.Vec).Data
	if len(mu) != 50 {
		t.Fatalf("%d draws of mu, want 50", len(mu))
	}
	for j := range 2 {
		for i, x := range column(t, check, "yrep", "y", j) {
			if math.Abs(x-mu[i]) > 0.01 {
				t.Fatalf("draw %d: y_rep[%d] = %v, mu = %v: want within 0.01", i+1, j+1, x, mu[i])
			}
		}
	}
}
