package gp_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	rloo "github.com/kml-lang/kml/runtime/loo"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	sloo "github.com/kml-lang/kml/stdlib/loo"
)

// TestGPLOOMixesTheExactConditionals: loo of a GP regression's posterior
// takes each draw's exact log p(yᵢ | y₋ᵢ, θ) (runtime/gp.LOO, itself held
// to n refits) and mixes it over the draws by PSIS. The test recomputes
// both from the posterior's ell and sigma draws: elpd_loo_i to 1e-9.
func TestGPLOOMixesTheExactConditionals(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [-1.9, -1.5, -1.2, -0.8, -0.5, -0.1, 0.2, 0.6, 0.9, 1.3, 1.6, 2.0]
let y = [-0.9, -1.1, -0.7, -0.2, -0.4, 0.1, 0.3, 0.5, 0.9, 0.8, 1.1, 0.7]
model m {
  ell ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, sigma)
}
let post = sample(m, chains: 1, warmup: 150, draws: 200, seed: 5)
let ells = post.ell
let sigmas = post.sigma
let l = loo(post)
`)
	xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	ells := kmltest.Lookup[*eval.Vec](t, in, "ells").Data
	sigmas := kmltest.Lookup[*eval.Vec](t, in, "sigmas").Data
	l := kmltest.Lookup[*sloo.LOOValue](t, in, "l")
	x := mat.NewDense(len(xs), 1, xs)
	n, S := len(y), len(ells)
	ll := make([][]float64, n)
	for i := range ll {
		ll[i] = make([]float64, S)
	}
	for s := range ells {
		k, err := kernels.NewRBF([]float64{ells[s]})
		if err != nil {
			t.Fatal(err)
		}
		lp, err := rgp.LOO(k, x, y, sigmas[s]*sigmas[s])
		if err != nil {
			t.Fatal(err)
		}
		for i := range lp {
			ll[i][s] = lp[i]
		}
	}
	if l.N != n || l.S != S {
		t.Fatalf("loo has %d points × %d draws, want %d × %d", l.N, l.S, n, S)
	}
	for i := range ll {
		lw, _ := rloo.LogWeights(ll[i], 1)
		hi := math.Inf(-1)
		for s := range lw {
			hi = math.Max(hi, lw[s]+ll[i][s])
		}
		sum := 0.0
		for s := range lw {
			sum += math.Exp(lw[s] + ll[i][s] - hi)
		}
		want := hi + math.Log(sum)
		if math.Abs(l.ElpdI[i]-want) > 1e-9 {
			t.Errorf("point %d: elpd_loo_i %.12f, recomputed %.12f", i+1, l.ElpdI[i], want)
		}
	}
}

// TestGPLOOLatentMixesTheCavities: loo of a latent GP observed through
// bernoulli_logit (approx "laplace") and student_t (approx "vb") takes each
// draw's approximate log p(yᵢ | y₋ᵢ, θ) from the approximation's cavities
// (runtime/gp.LatentLOO, itself held to refits and to the true LOO) and
// mixes it over the draws by PSIS. The test recomputes both from the
// posterior's draws: elpd_loo_i to 1e-9.
func TestGPLOOLatentMixesTheCavities(t *testing.T) {
	for _, tc := range []struct {
		name, obs, approx string
		lik               rgp.Lik
		y                 []float64
	}{
		{"logit", "c ~ bernoulli_logit(f)", "laplace", rgp.Lik{Kind: rgp.Logit},
			[]float64{-1, -1, -1, 1, -1, -1, 1, 1, 1, -1, 1, 1}},
		{"student_t", "c ~ student_t(4, f, 0.3)", "vb", rgp.Lik{Kind: rgp.StudentT, Params: []float64{4, 0.3}},
			[]float64{-0.9, -1.1, -0.7, -0.2, -0.4, 0.1, 0.3, 0.5, 2.9, 0.8, 1.1, 0.7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := strings.ReplaceAll(strings.Trim(fmt.Sprint(tc.y), "[]"), " ", ", ")
			if tc.lik.Kind == rgp.Logit {
				c = strings.ReplaceAll(c, "-1", "0")
			}
			in, _ := kmltest.Run(t, `
let x = [-1.9, -1.5, -1.2, -0.8, -0.5, -0.1, 0.2, 0.6, 0.9, 1.3, 1.6, 2.0]
let c = [`+c+`]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  `+tc.obs+`
}
let post = sample(m, chains: 1, warmup: 25, draws: 40, seed: 5, approx: "`+tc.approx+`")
let ells = post.ell
let l = loo(post)
`)
			xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
			ells := kmltest.Lookup[*eval.Vec](t, in, "ells").Data
			l := kmltest.Lookup[*sloo.LOOValue](t, in, "l")
			x := mat.NewDense(len(xs), 1, xs)
			inf, _ := rgp.Approx(tc.approx).Info()
			n, S := len(tc.y), len(ells)
			ll := make([][]float64, n)
			for i := range ll {
				ll[i] = make([]float64, S)
			}
			for s := range ells {
				k, err := kernels.NewRBF([]float64{ells[s]})
				if err != nil {
					t.Fatal(err)
				}
				K, err := kernels.Gram(k, x)
				if err != nil {
					t.Fatal(err)
				}
				lp, err := rgp.LatentLOO(inf.New(), K, tc.y, tc.lik)
				if err != nil {
					t.Fatal(err)
				}
				for i := range lp {
					ll[i][s] = lp[i]
				}
			}
			if l.N != n || l.S != S {
				t.Fatalf("loo has %d points × %d draws, want %d × %d", l.N, l.S, n, S)
			}
			for i := range ll {
				lw, _ := rloo.LogWeights(ll[i], 1)
				hi := math.Inf(-1)
				for s := range lw {
					hi = math.Max(hi, lw[s]+ll[i][s])
				}
				sum := 0.0
				for s := range lw {
					sum += math.Exp(lw[s] + ll[i][s] - hi)
				}
				want := hi + math.Log(sum)
				if math.Abs(l.ElpdI[i]-want) > 1e-9 {
					t.Errorf("point %d: elpd_loo_i %.12f, recomputed %.12f", i+1, l.ElpdI[i], want)
				}
			}
		})
	}
}

// TestGPLOORefusals: what the GP leave-one-out does not cover says so at
// the observation: a multi-class GP, inducing points, and a latent GP
// fitted by joint MAP (no approximate posterior to leave a point out of).
func TestGPLOORefusals(t *testing.T) {
	kmltest.ExpectError(t, `
let x = [-1.5, -0.5, 0.5, 1.5, 2.0, 2.2]
let y = [0.1, 0.3, 0.2, 0.5, 0.9, 1.0]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell), inducing: 3)
  y ~ normal(f, 0.3)
}
let post = sample(m, chains: 1, warmup: 20, draws: 20, seed: 1)
let l = loo(post)
`, "inducing points (the Nyström path) is not yet available")
	kmltest.ExpectError(t, `
let x = [-1.5, -0.5, 0.5, 1.5, 2.0, 2.2]
let c = [1, 1, 2, 2, 3, 3]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell), classes: 3)
  c ~ categorical_logit(f)
}
let post = sample(m, chains: 1, warmup: 20, draws: 20, seed: 1, approx: "laplace")
let l = loo(post)
`, "an observation of a latent GP (f ~ gp(...)) is not yet available")
}
