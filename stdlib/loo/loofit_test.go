package loo_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/loo"
)

const fitData = `
let x = [-1.9, -1.5, -1.2, -0.8, -0.5, -0.1, 0.2, 0.6, 0.9, 1.3, 1.6, 2.0]
let y = [-0.9, -1.1, -0.7, -0.2, -0.4, 0.1, 0.3, 0.5, 0.9, 0.8, 1.1, 0.7]
let c = [0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1]
`

// TestLOOFitRegressionRefits: loo of an ML-II fit of a GP regression is
// log p(yᵢ | y₋ᵢ, θ̂) at the fitted ell and sigma; the test refits the
// predictive without each point in turn (a dense solve of K₋ᵢ + σ²I,
// N(yᵢ | k₋ᵢᵀ(K₋ᵢ + σ²I)⁻¹y₋ᵢ, k(xᵢ, xᵢ) − k₋ᵢᵀ(K₋ᵢ + σ²I)⁻¹k₋ᵢ + σ²)) at
// the fit's values, to 1e-9, and checks the sums and standard errors.
func TestLOOFitRegressionRefits(t *testing.T) {
	in, _ := kmltest.Run(t, fitData+`
model m {
  ell ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, sigma)
}
let fit = optimize(m, objective: "ml")
let l = loo(fit)
let ell = fit.ell
let sigma = fit.sigma
let cond = l.conditional
`)
	xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	ell := float64(kmltest.Lookup[eval.Num](t, in, "ell"))
	sigma := float64(kmltest.Lookup[eval.Num](t, in, "sigma"))
	l := kmltest.Lookup[*loo.FitLOOValue](t, in, "l")
	if !bool(kmltest.Lookup[eval.Bool](t, in, "cond")) {
		t.Error("loo(fit).conditional is false")
	}
	n := len(y)
	k := func(a, b float64) float64 { return math.Exp(-0.5 * (a - b) * (a - b) / (ell * ell)) }
	sum, ss := 0.0, 0.0
	want := make([]float64, n)
	for i := range y {
		var idx []int
		for j := range y {
			if j != i {
				idx = append(idx, j)
			}
		}
		C := mat.NewDense(n-1, n-1, nil)
		ks := mat.NewVecDense(n-1, nil)
		yv := mat.NewVecDense(n-1, nil)
		for a, ia := range idx {
			for b, ib := range idx {
				C.Set(a, b, k(xs[ia], xs[ib]))
			}
			C.Set(a, a, C.At(a, a)+sigma*sigma)
			ks.SetVec(a, k(xs[ia], xs[i]))
			yv.SetVec(a, y[ia])
		}
		var u, v mat.VecDense
		if err := u.SolveVec(C, yv); err != nil {
			t.Fatal(err)
		}
		if err := v.SolveVec(C, ks); err != nil {
			t.Fatal(err)
		}
		mu := mat.Dot(ks, &u)
		s2 := 1 - mat.Dot(ks, &v) + sigma*sigma
		want[i] = -0.5*math.Log(2*math.Pi*s2) - 0.5*(y[i]-mu)*(y[i]-mu)/s2
		if math.Abs(l.ElpdI[i]-want[i]) > 1e-9 {
			t.Errorf("point %d: loo(fit) %.12f, refit %.12f", i+1, l.ElpdI[i], want[i])
		}
		sum += want[i]
	}
	for _, w := range want {
		ss += (w - sum/float64(n)) * (w - sum/float64(n))
	}
	if se := math.Sqrt(float64(n) * ss / float64(n-1)); math.Abs(l.Elpd.Value-sum) > 1e-9 || math.Abs(l.Elpd.SE-se) > 1e-9 || math.Abs(l.IC.Value+2*sum) > 1e-9 {
		t.Errorf("elpd_loo %.10f (se %.10f), looic %.10f; want %.10f (se %.10f), %.10f", l.Elpd.Value, l.Elpd.SE, l.IC.Value, sum, se, -2*sum)
	}
}

// TestLOOFitLatent: loo of an ML-II fit of a GP classifier under EP is
// runtime/gp's EP-LOO at the fitted ell (held there to refits and to the
// true LOO), to 1e-12, and loo_compare takes fits' loo beside each other.
func TestLOOFitLatent(t *testing.T) {
	in, _ := kmltest.Run(t, fitData+`
model b {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  c ~ bernoulli_logit(f)
}
let fit = optimize(b, objective: "ml", approx: "ep")
let l = loo(fit)
let ell = fit.ell
let la = loo(optimize(b, objective: "ml", approx: "laplace"))
let cmp = loo_compare(ep: l, laplace: la)
`)
	xs := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	c := kmltest.Lookup[*eval.Vec](t, in, "c").Data
	ell := float64(kmltest.Lookup[eval.Num](t, in, "ell"))
	l := kmltest.Lookup[*loo.FitLOOValue](t, in, "l")
	cmp := kmltest.Lookup[*loo.CompareValue](t, in, "cmp")
	kern, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		t.Fatal(err)
	}
	K, err := kernels.Gram(kern, mat.NewDense(len(xs), 1, xs))
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, len(c))
	for i, v := range c {
		y[i] = 2*v - 1
	}
	want, err := rgp.LatentLOO(rgp.EP{}, K, y, rgp.Lik{Kind: rgp.Logit})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if math.Abs(l.ElpdI[i]-want[i]) > 1e-12 {
			t.Errorf("point %d: loo(fit) %.12f, EP-LOO %.12f", i+1, l.ElpdI[i], want[i])
		}
	}
	if len(cmp.Rows) != 2 {
		t.Errorf("loo_compare has %d rows, want 2", len(cmp.Rows))
	}
}

// TestLOOFitRefusals: what loo at a point estimate cannot do says so.
func TestLOOFitRefusals(t *testing.T) {
	kmltest.ExpectError(t, fitData+`
model b {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  c ~ bernoulli_logit(f)
}
let l = loo(optimize(b))
`, `objective "map" (a joint MAP or SVM objective) does not make`)
	kmltest.ExpectError(t, fitData+`
model m {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
}
let l = loo(optimize(m))
`, "neither")
	kmltest.ExpectError(t, fitData+`
model m {
  ell ~ lognormal(0, 1)
  mu ~ normal(0, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, 0.3)
  c ~ normal(mu, 1)
}
let l = loo(optimize(m, objective: "ml"))
`, "independent given the parameters")
}
