package gp_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"

	"gonum.org/v1/gonum/mat"
)

// gpLaplaceSrc binds eight points x in two dimensions with real labels y
// and binary labels c, and four latent-GP models with non-Gaussian
// likelihoods (stu, cls, lap; fixed has no free parameter). The gradient
// tests of gp_test.go and gp_laplace_test.go both start from it.
const gpLaplaceSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let y = [0.2, 0.6, 0.8, 2.9, 0.7, 0.3, -0.1, -0.4]
let c = [1, 1, 0, 1, 0, 0, 1, 0]
model stu {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  nu ~ lognormal(1, 1)
  s ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell) + 0.1 * white())
  y ~ student_t(nu, f, s)
}
model cls {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell))
  c ~ bernoulli_logit(f)
}
model lap {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  b ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell) + 0.1 * white())
  y ~ laplace(f, b)
}
model fixed {
  f ~ gp(x, 2 * rbf(0.7))
  c ~ bernoulli_logit(f)
}
`

// TestGPLaplaceDensityGradient: with approx "laplace" and "ep" the
// compiled density's gradient (kernel hyperparameters and the
// likelihood's parameters through the replayable node) matches central
// differences.
func TestGPLaplaceDensityGradient(t *testing.T) {
	in, _ := kmltest.Run(t, gpLaplaceSrc)
	for _, tc := range []struct{ name, approx string }{{"stu", "laplace"}, {"cls", "laplace"}, {"stu", "ep"}, {"cls", "ep"}, {"lap", "ep"}} {
		name := tc.name
		m := kmltest.Lookup[*eval.Model](t, in, name)
		c, err := model.CompileFor(in, m, nil, model.Terms{Likelihood: true, Latent: model.Objective{Name: "mlm", Approx: rgp.Approx(tc.approx)}})
		if err != nil {
			t.Fatal(err)
		}
		checkGradient(t, in, c, startAt(c), 1e-5, name+", "+tc.approx)
	}
}

// TestGPLaplaceLogLik: loglik(m, {}, approx: "laplace") is runtime/gp's
// Laplace approximation at the fixed kernel (labels {0, 1} read as
// {−1, 1}), and differs from the VB bound; optimize with approx "laplace"
// converges and records its approximation for predict.
func TestGPLaplaceLogLik(t *testing.T) {
	in, _ := kmltest.Run(t, gpLaplaceSrc+`
let la = loglik(fixed, {}, approx: "laplace")
let ep = loglik(fixed, {}, approx: "ep")
let oe = optimize(cls, objective: "ml", approx: "ep")
let pe = predict(oe, x).prob
let vb = loglik(fixed, {})
let o = optimize(cls, objective: "ml", approx: "laplace")
let p = predict(o, x).prob
`)
	la := float64(kmltest.Lookup[eval.Num](t, in, "la"))
	vb := float64(kmltest.Lookup[eval.Num](t, in, "vb"))
	xs := mat.NewDense(8, 2, []float64{0.1, 1.0, 0.5, -0.3, 0.9, 0.4, 1.3, 1.1, 1.7, -0.8, 2.1, 0.2, 2.6, 0.9, 3.0, -0.1})
	rbf, _ := kernels.NewRBF([]float64{0.7})
	k, _ := kernels.NewScaled(2, rbf)
	y := []float64{1, 1, -1, 1, -1, -1, 1, -1}
	want, err := rgp.NonGaussian(rgp.Settings{Approx: rgp.LaplaceApprox{}}, k, xs, y, rgp.Lik{Kind: rgp.Logit}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(la-want) > 1e-12 {
		t.Errorf("loglik laplace %.12g, runtime %.12g", la, want)
	}
	wantEP, err := rgp.NonGaussian(rgp.Settings{Approx: rgp.EP{}}, k, xs, y, rgp.Lik{Kind: rgp.Logit}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ep := float64(kmltest.Lookup[eval.Num](t, in, "ep")); math.Abs(ep-wantEP) > 1e-12 || !(vb < la && la < ep) {
		t.Errorf("loglik ep %.12g, runtime %.12g; want VB %.6g < Laplace %.6g < EP", ep, wantEP, vb, la)
	}
	if v, _ := kmltest.Lookup[*eval.Record](t, in, "oe").Attr("converged"); v != eval.Bool(true) {
		t.Errorf("optimize with approx ep did not converge")
	}
	if math.Abs(la-vb) < 1e-6 {
		t.Errorf("loglik laplace %.12g equals the VB bound %.12g", la, vb)
	}
	o := kmltest.Lookup[*eval.Record](t, in, "o")
	if v, _ := o.Attr("converged"); v != eval.Bool(true) {
		t.Errorf("optimize with approx laplace did not converge: %v", o)
	}
	if v, _ := o.Attr("approx"); v != eval.Str("laplace") {
		t.Errorf("optimize's record has approx %v", v)
	}
}

// TestGPLaplaceRefusals: the Laplace likelihood, objective "vb" with
// another approximation and unknown names are errors.
func TestGPLaplaceRefusals(t *testing.T) {
	src := `let x = [[0], [1], [2]]
let y = [0.1, 0.2, 0.3]
model g {
  f ~ gp(x, rbf(1))
  y ~ laplace(f, 0.2)
}
`
	// The runtime's "gp: " prefix is not repeated by the builtin's own.
	kmltest.ExpectError(t, src+`loglik(g, {}, approx: "laplace")`, "error: gp: Laplace's approximation needs a likelihood with curvature")
	kmltest.ExpectError(t, src+`optimize(g, objective: "vb", approx: "laplace")`, `objective "vb" is the variational bound`)
	kmltest.ExpectError(t, src+`loglik(g, {}, approx: "lap")`, `approx must be "vb", "laplace" or "ep", got "lap"`)
}

// TestGPSampleApprox: sample takes approx, and the summary names the
// approximation the hyperparameters were sampled under.
func TestGPSampleApprox(t *testing.T) {
	in, _ := kmltest.Run(t, gpLaplaceSrc+`
let post = sample(cls, approx: "laplace", chains: 1, warmup: 30, draws: 30, seed: 1)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	found := false
	for _, w := range post.Summary.Warnings {
		found = found || strings.Contains(w, "Laplace's approximation")
	}
	if !found {
		t.Errorf("sample with approx laplace: warnings %v", post.Summary.Warnings)
	}
}
