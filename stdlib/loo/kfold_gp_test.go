package loo_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/loo"
)

// kfoldGPData are twelve points; y is observed through normal(f, sigma), c
// (labels) through bernoulli_logit(f).
const kfoldGPData = `
let x = [-1.9, -1.5, -1.2, -0.8, -0.5, -0.1, 0.2, 0.6, 0.9, 1.3, 1.6, 2.0]
let y = [-0.9, -1.1, -0.7, -0.2, -0.4, 0.1, 0.3, 0.5, 0.9, 0.8, 1.1, 0.7]
let c = [0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1]
`

// list is a KML vector literal of x.
func list(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = fmt.Sprint(v)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// logMeanExp is log(1/S Σ exp(x_s)).
func logMeanExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s/float64(len(x)))
}

// denseGPPredictive is log N(y* | μ*, σ*² + σ²) for GP regression with the
// rbf kernel of lengthscale ell on the training points (xt, yt), by a dense
// solve of K + σ²I.
func denseGPPredictive(t *testing.T, xt, yt []float64, xs, ys, ell, sigma float64) float64 {
	k := func(a, b float64) float64 { return math.Exp(-0.5 * (a - b) * (a - b) / (ell * ell)) }
	n := len(xt)
	C := mat.NewDense(n, n, nil)
	ks := mat.NewVecDense(n, nil)
	for a := range xt {
		for b := range xt {
			C.Set(a, b, k(xt[a], xt[b]))
		}
		C.Set(a, a, C.At(a, a)+sigma*sigma)
		ks.SetVec(a, k(xt[a], xs))
	}
	var u, v mat.VecDense
	if err := u.SolveVec(C, mat.NewVecDense(n, append([]float64(nil), yt...))); err != nil {
		t.Fatal(err)
	}
	if err := v.SolveVec(C, ks); err != nil {
		t.Fatal(err)
	}
	mu := mat.Dot(ks, &u)
	s2 := 1 - mat.Dot(ks, &v) + sigma*sigma
	return -0.5*math.Log(2*math.Pi*s2) - 0.5*(ys-mu)*(ys-mu)/s2
}

// foldDraws samples call, a model on a fold's training rows, as kfold
// does (the same sampler settings, extra arguments and the fold's seed)
// and returns the named parameters' draws.
func foldDraws(t *testing.T, decl, call, extra string, seed float64, names ...string) [][]float64 {
	in, _ := kmltest.Run(t, decl+fmt.Sprintf("\nlet post = sample(%s, seed: %d, chains: 1, warmup: 80, draws: 60%s)\n", call, int64(seed), extra)+
		func() string {
			var b strings.Builder
			for _, n := range names {
				fmt.Fprintf(&b, "let d_%s = post.%s\n", n, n)
			}
			return b.String()
		}())
	out := make([][]float64, len(names))
	for i, n := range names {
		out[i] = kmltest.Lookup[*eval.Vec](t, in, "d_"+n).Data
	}
	return out
}

// TestKFoldGPRegression: kfold of a GP regression scores each held-out
// point by log(1/S Σₛ p(yᵢ | y_train, θₛ)) over the fold's training draws.
// The test samples each fold's training rows again as kfold does (its
// folds and seeds, the same settings; the draws are the same), computes
// the GP predictive of each held-out point at each draw by a dense solve,
// and compares elpd_kfold_i to 1e-9; likewise lpd, the in-sample
// predictive log p(yᵢ | y, θₛ) over the full fit's draws.
func TestKFoldGPRegression(t *testing.T) {
	const decl = kfoldGPData + `
model m(x, y) {
  ell ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, sigma)
}
`
	in, _ := kmltest.Run(t, decl+`let k = kfold(m(x: x, y: y), K: 3, seed: 7, chains: 1, warmup: 80, draws: 60)`)
	xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	for f := range k.K {
		var xt, yt []float64
		for i, fi := range k.Folds {
			if fi != f {
				xt, yt = append(xt, xs[i]), append(yt, y[i])
			}
		}
		d := foldDraws(t, decl, fmt.Sprintf("m(x: %s, y: %s)", list(xt), list(yt)), "", k.Seeds[f], "ell", "sigma")
		for i, fi := range k.Folds {
			if fi != f {
				continue
			}
			lp := make([]float64, len(d[0]))
			for s := range lp {
				lp[s] = denseGPPredictive(t, xt, yt, xs[i], y[i], d[0][s], d[1][s])
			}
			if want := logMeanExp(lp); math.Abs(k.ElpdI[i]-want) > 1e-9 {
				t.Errorf("fold %d, point %d: elpd_kfold_i %.12f, dense %.12f", f+1, i+1, k.ElpdI[i], want)
			}
		}
	}
	d := foldDraws(t, decl, "m(x: x, y: y)", "", float64(k.Seed), "ell", "sigma")
	for i := range y {
		lp := make([]float64, len(d[0]))
		for s := range lp {
			lp[s] = denseGPPredictive(t, xs, y, xs[i], y[i], d[0][s], d[1][s])
		}
		if want := logMeanExp(lp); math.Abs(k.LPD[i]-want) > 1e-9 {
			t.Errorf("point %d: lpd %.12f, dense in-sample predictive %.12f", i+1, k.LPD[i], want)
		}
	}
}

// TestKFoldGPLatent: kfold of a GP classifier under approx "laplace"
// scores each held-out point by runtime/gp's HeldOutLatent at each
// training draw (held there to a dense computation of the approximation's
// predictive and quadrature), mixed as log mean exp: to 1e-9.
func TestKFoldGPLatent(t *testing.T) {
	const decl = kfoldGPData + `
model b(x, c) {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  c ~ bernoulli_logit(f)
}
`
	in, _ := kmltest.Run(t, decl+`let k = kfold(b(x: x, c: c), K: 3, seed: 7, chains: 1, warmup: 80, draws: 60, approx: "laplace")`)
	xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	c := kmltest.Lookup[*eval.Vec](t, in, "c").Data
	k := kmltest.Lookup[*loo.KFoldValue](t, in, "k")
	y := make([]float64, len(c))
	for i, v := range c {
		y[i] = 2*v - 1
	}
	x := mat.NewDense(len(xs), 1, xs)
	for f := range k.K {
		var xt, ct []float64
		var train, test []int
		for i, fi := range k.Folds {
			if fi != f {
				xt, ct = append(xt, xs[i]), append(ct, c[i])
				train = append(train, i)
			} else {
				test = append(test, i)
			}
		}
		d := foldDraws(t, decl, fmt.Sprintf("b(x: %s, c: %s)", list(xt), list(ct)), `, approx: "laplace"`, k.Seeds[f], "ell")
		lp := make([][]float64, len(test))
		for _, ell := range d[0] {
			kern, err := kernels.NewRBF([]float64{ell})
			if err != nil {
				t.Fatal(err)
			}
			v, err := rgp.HeldOutLatent(rgp.LaplaceApprox{}, kern, x, y, rgp.Lik{Kind: rgp.Logit}, train, test)
			if err != nil {
				t.Fatal(err)
			}
			for j := range test {
				lp[j] = append(lp[j], v[j])
			}
		}
		for j, i := range test {
			if want := logMeanExp(lp[j]); math.Abs(k.ElpdI[i]-want) > 1e-9 {
				t.Errorf("fold %d, point %d: elpd_kfold_i %.12f, recomputed %.12f", f+1, i+1, k.ElpdI[i], want)
			}
		}
	}
}
