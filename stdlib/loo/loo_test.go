package loo_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	rloo "github.com/kml-lang/kml/runtime/loo"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/loo"
)

// The conjugate normal model with known variance: y_i ~ normal(mu, σ),
// mu ~ normal(m0, τ). Leaving y_i out, mu | y_−i is normal with precision
// 1/τ² + (n−1)/σ² and mean (m0/τ² + Σ_{j≠i} y_j/σ²)/precision, so the exact
// LOO predictive of y_i is normal(mean, √(σ² + 1/precision)).
const conjugate = `
let y = [1.2, -0.3, 0.8, 2.1, 0.4, 1.5, -0.9, 0.7, 1.1, 0.2, 3.4, 0.9]
model m {
  mu ~ normal(0.5, 2)
  y ~ normal(mu, 1.1)
}
let post = sample(m, seed: 36, chains: 4, draws: 1000, warmup: 500)
let l = loo(post)
let w = waic(post)
`

func exactLOO(y []float64, m0, tau, sigma float64) []float64 {
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	out := make([]float64, len(y))
	for i, yi := range y {
		prec := 1/(tau*tau) + float64(len(y)-1)/(sigma*sigma)
		mean := (m0/(tau*tau) + (sum-yi)/(sigma*sigma)) / prec
		s2 := sigma*sigma + 1/prec
		out[i] = -0.5*math.Log(2*math.Pi*s2) - 0.5*(yi-mean)*(yi-mean)/s2
	}
	return out
}

// TestLOOConjugateNormal compares loo(sample(m)) with the exact LOO of the
// conjugate model (elpd −18.8164). The difference is the Monte Carlo error
// of PSIS over correlated NUTS draws: two seeds with 40,000 draws gave
// −18.834 and −18.816, so the sd of the total is about 0.01–0.02 and 0.05
// (0.02 per point) leaves room while still failing for a wrong weight
// (the posterior mean of the likelihood, lpd rather than LOO, is off by
// p_loo ≈ 1; raw importance weights without the LOO normalisation by far
// more).
func TestLOOConjugateNormal(t *testing.T) {
	in, out := kmltest.Run(t, conjugate)
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	y := []float64{1.2, -0.3, 0.8, 2.1, 0.4, 1.5, -0.9, 0.7, 1.1, 0.2, 3.4, 0.9}
	exact := exactLOO(y, 0.5, 2, 1.1)
	total := 0.0
	for i, e := range exact {
		total += e
		if d := math.Abs(l.ElpdI[i] - e); d > 0.02 {
			t.Errorf("point %d: elpd_loo_i %.5f, exact %.5f", i+1, l.ElpdI[i], e)
		}
		if l.K[i] > 0.5 {
			t.Errorf("point %d: k̂ %.3f, expected small for a conjugate normal", i+1, l.K[i])
		}
	}
	if d := math.Abs(l.Elpd.Value - total); d > 0.05 {
		t.Errorf("elpd_loo %.5f, exact %.5f", l.Elpd.Value, total)
	}
	// y = 3.4 is far enough out for R's WAIC warning.
	if !strings.Contains(out.String(), "1 (8.3%) p_waic estimates greater than 0.4") {
		t.Errorf("output %q, want the p_waic warning", out.String())
	}
}

// TestLOOFromDraws: the pointwise log likelihood loo takes from the model
// is the normal density at each posterior draw computed here by hand, in
// the posterior's draw order (PSIS on it gives the same numbers exactly).
func TestLOOFromDraws(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.3, -1.2, 2.5, 0.1, 0.9]
model m {
  mu ~ normal(0, 5)
  sigma ~ lognormal(0, 1)
  y ~ normal(mu, sigma)
}
let post = sample(m, seed: 7, chains: 2, draws: 300, warmup: 300)
let l = loo(post)
let w = waic(post)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	mu, _ := post.Attr("mu")
	sigma, _ := post.Attr("sigma")
	y := []float64{0.3, -1.2, 2.5, 0.1, 0.9}
	ll := make([][]float64, len(y))
	for i, yi := range y {
		for s, m := range mu.(*eval.Vec).Data {
			sd := sigma.(*eval.Vec).Data[s]
			z := (yi - m) / sd
			ll[i] = append(ll[i], -0.5*math.Log(2*math.Pi)-math.Log(sd)-0.5*z*z)
		}
	}
	want, err := rloo.Compute(context.Background(), ll, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	if math.Abs(l.Elpd.Value-want.Elpd.Value) > 1e-9 || math.Abs(l.P.Value-want.P.Value) > 1e-9 {
		t.Errorf("loo elpd %v p %v, by hand %v %v", l.Elpd.Value, l.P.Value, want.Elpd.Value, want.P.Value)
	}
	for i := range y {
		if math.Abs(l.K[i]-want.K[i]) > 1e-9 {
			t.Errorf("k̂ %d: %v, by hand %v", i+1, l.K[i], want.K[i])
		}
	}
	wv := kmltest.Lookup[*loo.WAICValue](t, in, "w")
	ww, _ := rloo.ComputeWAIC(ll)
	if math.Abs(wv.Elpd.Value-ww.Elpd.Value) > 1e-9 {
		t.Errorf("waic elpd %v, by hand %v", wv.Elpd.Value, ww.Elpd.Value)
	}
}

// TestLOOCompare names rows by argument names, else by model names, best
// first with difference 0, and the difference is the pointwise one.
func TestLOOCompare(t *testing.T) {
	in, _ := kmltest.Run(t, conjugate+`
model m2 {
  mu ~ normal(0.5, 2)
  y ~ normal(mu, 3)
}
let p2 = sample(m2, seed: 37, chains: 2, draws: 500, warmup: 300)
let l2 = loo(p2)
let named = loo_compare(wide: l2, narrow: l)
let byModel = loo_compare(p2, post)
let names = named.models
`)
	c := kmltest.Lookup[*loo.CompareValue](t, in, "named")
	l := kmltest.Lookup[*loo.LOOValue](t, in, "l")
	l2 := kmltest.Lookup[*loo.LOOValue](t, in, "l2")
	if c.Rows[0].Name != "narrow" || c.Rows[1].Name != "wide" || c.Rows[0].ElpdDiff != 0 {
		t.Fatalf("rows %+v", c.Rows)
	}
	if d := c.Rows[1].ElpdDiff - (l2.Elpd.Value - l.Elpd.Value); math.Abs(d) > 1e-9 {
		t.Errorf("elpd_diff %v, difference of the elpds %v", c.Rows[1].ElpdDiff, l2.Elpd.Value-l.Elpd.Value)
	}
	b := kmltest.Lookup[*loo.CompareValue](t, in, "byModel")
	if b.Rows[0].Name != "m" || b.Rows[1].Name != "m2" {
		t.Errorf("rows by model %+v", b.Rows)
	}
	if !strings.Contains(c.String(), "elpd_diff") {
		t.Errorf("table %q", c.String())
	}
}

// TestLOOWarnsHighK: an outlier far from a tight posterior has a large
// k̂, and loo warns with the count.
func TestLOOWarnsHighK(t *testing.T) {
	_, out := kmltest.Run(t, `
let y = [0.1, -0.2, 0.05, 0.3, -0.1, 0.2, 0.0, -0.3, 0.15, 9.0]
model m {
  mu ~ normal(0, 10)
  sigma ~ lognormal(-1, 0.3)
  y ~ normal(mu, sigma)
}
let l = loo(sample(m, seed: 3, chains: 2, draws: 500, warmup: 300))
`)
	if !strings.Contains(out.String(), "observations have Pareto k̂ >") {
		t.Errorf("no k̂ warning: %q", out.String())
	}
}

// TestLOORefusals: what has no pointwise predictive density is refused,
// saying why, at the statement or the argument.
func TestLOORefusals(t *testing.T) {
	kmltest.ExpectError(t, `
let y = [0.1, 0.2]
model m {
  mu ~ normal(0, 1)
  target += -0.5 * (y[1] - mu)^2
}
let l = loo(sample(m, seed: 1, chains: 1, draws: 50, warmup: 50))
`, "a `target +=` term has no points")
	kmltest.ExpectError(t, `
let z = [[0.0], [1.0]]
let x = [[0.2], [0.9], [0.4]]
model m {
  ell ~ gamma(2, 2)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let l = waic(sample(m, seed: 1, chains: 1, draws: 50, warmup: 50))
`, "bke is a pseudolikelihood")
	kmltest.ExpectError(t, `
let X = [[0.0], [1.0], [2.0]]
let c = [1, 2, 3]
model g {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), classes: 3)
  c ~ categorical_logit(f)
}
let l = loo(sample(g, seed: 1, chains: 1, draws: 50, warmup: 50, approx: "laplace"))
`, "not yet available")
	kmltest.ExpectError(t, `let c = loo_compare(1, 2)`, "loo_compare: each model must be a loo or kfold result or a posterior, got")
	kmltest.ExpectError(t, `
let y = [0.1, 0.2]
model m {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
let l = loo(sample(m, seed: 1, chains: 1, draws: 50, warmup: 50), r_eff: 0)
`, "r_eff must be positive")
}
