package gp_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// gpData is a small regression problem with two input columns.
const gpData = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4]
model g {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  b ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell) + b * linear(0.5))
  y ~ normal(f, sigma)
}
`

// TestGPLogLikIsDenseMarginal: loglik of a latent-GP model is
// log N(y | 0, K + σ²I), here built entry by entry from the kernel's
// formula and evaluated with a dense inverse and determinant.
func TestGPLogLikIsDenseMarginal(t *testing.T) {
	in, _ := kmltest.Run(t, gpData+`let ll = loglik(g, {ell: [0.8, 1.3], a: 1.5, b: 0.4, sigma: 0.3})`)
	got := float64(kmltest.Lookup[eval.Num](t, in, "ll"))
	xs := [][]float64{{0.1, 1.0}, {0.5, -0.3}, {0.9, 0.4}, {1.3, 1.1}, {1.7, -0.8}, {2.1, 0.2}, {2.6, 0.9}, {3.0, -0.1}}
	y := []float64{0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4}
	n := len(xs)
	c := mat.NewDense(n, n, nil)
	for i := range xs {
		for j := range xs {
			d0 := (xs[i][0] - xs[j][0]) / 0.8
			d1 := (xs[i][1] - xs[j][1]) / 1.3
			v := 1.5*math.Exp(-0.5*(d0*d0+d1*d1)) + 0.4*(xs[i][0]*xs[j][0]+xs[i][1]*xs[j][1]+0.5)
			if i == j {
				v += 0.09
			}
			c.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		t.Fatal(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(c)
	want := -0.5*mat.Inner(yv, &inv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if math.Abs(got-want) > 1e-10 {
		t.Fatalf("loglik %.12g, dense %.12g", got, want)
	}
}

// TestGPDensityGradient compares the compiled density's gradient with
// central differences for every objective: it checks the chain from the
// runtime's hyperparameter derivatives through the kernel expression (ARD
// lengthscales, weights) and σ² = sigma² to the unconstrained scale.
func TestGPDensityGradient(t *testing.T) {
	in, _ := kmltest.Run(t, gpData)
	m := kmltest.Lookup[*eval.Model](t, in, "g")
	for _, terms := range []model.Terms{
		{Likelihood: true},
		{Prior: true, Likelihood: true, Latent: model.Objective{Name: "map"}},
		{Likelihood: true, Latent: model.Objective{Name: "mkl", P: 1, Lambda: 0.5}},
		{Likelihood: true, Latent: model.Objective{Name: "rr", P: 2, Lambda: 0.5}},
	} {
		c, err := model.CompileFor(in, m, nil, terms)
		if err != nil {
			t.Fatal(err)
		}
		d := c.NewDensityFor(in)
		q := []float64{-0.2, 0.3, 0.4, -0.5, -1.1}
		grad := make([]float64, len(q))
		if _, err := d.LogDensity(grad, q); err != nil {
			t.Fatal(err)
		}
		for i := range q {
			const eps = 1e-6
			qp := append([]float64(nil), q...)
			qm := append([]float64(nil), q...)
			qp[i] += eps
			qm[i] -= eps
			fp, _ := d.Value(qp)
			fm, _ := d.Value(qm)
			fd := (fp - fm) / (2 * eps)
			if math.Abs(fd-grad[i]) > 1e-5*(1+math.Abs(fd)) {
				t.Errorf("objective %q: ∂/∂q[%d] (%s) = %.8g, finite difference %.8g", terms.Latent.Name, i, c.Names()[i], grad[i], fd)
			}
		}
	}
}

// TestGPBadInput: the errors a user sees name what is wrong and where.
func TestGPBadInput(t *testing.T) {
	cases := []struct{ src, want string }{
		{`let x = [[0], [1], [2]]
let y = [0.1, 0 / 0, 0.3]
model g {
  sigma ~ lognormal(0, 1)
  f ~ gp(x, rbf(1))
  y ~ normal(f, sigma)
}
optimize(g, objective: "ml")`, "t.kml:6:5: error: observation 2 is NaN; a latent GP needs finite observations"},
		{`let x = [[1e200], [2e200], [3e200]]
let y = [0.1, 0.2, 0.3]
model g {
  sigma ~ lognormal(0, 1)
  f ~ gp(x, linear())
  y ~ normal(f, sigma)
}
loglik(g, {sigma: 0.001})`, "t.kml:5:7: error: gp: the kernel matrix has entries that are not finite"},
		{`let x = [[0], [1], [2]]
let y = [0.1, 0.2]
model g {
  f ~ gp(x, rbf(1))
  y ~ normal(f, 0.1)
}
loglik(g, {})`, "t.kml:5:5: error: 2 observations for a latent GP at 3 input rows"},
		{`let x = [[0], [1], [2]]
let y = [0.1, 0.2, 0.3]
model g {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, 0.1)
}
optimize(g, objective: "mkl")`, "has no weights"},
		{`let x = [[0], [1], [2]]
let y = [0.1, 0.2, 0.3]
model g {
  f ~ gp(x, rbf(1))
  y ~ normal(f, 0.1)
  y ~ laplace(f, 0.2)
}
loglik(g, {})`, "t.kml:6:5: error: a latent function can be observed once; y observes one a second time"},
	}
	for _, c := range cases {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// TestGPNonGaussianDensityGradient: the compiled density's gradient against
// central differences with every likelihood parameter free, for each
// non-Gaussian likelihood and objective.
func TestGPNonGaussianDensityGradient(t *testing.T) {
	in, _ := kmltest.Run(t, gpLaplaceSrc)
	for _, name := range []string{"lap", "stu", "cls"} {
		m := kmltest.Lookup[*eval.Model](t, in, name)
		for _, obj := range []string{"", "map", "mkl"} {
			c, err := model.CompileFor(in, m, nil, model.Terms{Prior: obj == "map", Likelihood: true, Latent: model.Objective{Name: model.ObjectiveKind(obj), P: 1, Lambda: 0.5}})
			if err != nil {
				t.Fatal(err)
			}
			checkGradient(t, in, c, startAt(c), 1e-4, fmt.Sprintf("%s, objective %q", name, obj))
		}
	}
}

// TestGPRobustRegression: with 10% gross outliers in seeded data, the
// Laplace and Student-t likelihoods (ML-II by the VB bound) predict the
// true function better than the Gaussian one (exact ML-II).
func TestGPRobustRegression(t *testing.T) {
	src := `
let n = 60
let xs = linspace(-3, 3, n)
let x = cbind(xs)
let clean = sin(xs) + draw(normal(0, 0.1), n, seed: 21)
let out = draw(uniform(0, 1), n, seed: 22) < 0.1
let y = clean + out * (4 + draw(normal(0, 1), n, seed: 23))
let xt = cbind(linspace(-2.9, 2.9, 50))
let truth = sin(linspace(-2.9, 2.9, 50))
model gau {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  s ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, s)
}
model lap {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  b ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ laplace(f, b)
}
model stu {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  s ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ student_t(4, f, s)
}
fn rmse(m) = sqrt(mean((predict(optimize(m, objective: "ml", starts: 3, seed: 5), xt).f_mean - truth) ^ 2))
let outliers = sum(out)
let e = [rmse(gau), rmse(lap), rmse(stu)]
`
	in, _ := kmltest.Run(t, src)
	e := kmltest.Lookup[*eval.Vec](t, in, "e").Data
	no := float64(kmltest.Lookup[eval.Num](t, in, "outliers"))
	t.Logf("%v outliers of 60; test RMSE gaussian %.4f, laplace %.4f, student-t %.4f", no, e[0], e[1], e[2])
	if no < 3 || no > 10 {
		t.Fatalf("%v outliers; the data should have about 6", no)
	}
	if !(e[1] < e[0] && e[2] < e[0]) {
		t.Errorf("test RMSE gaussian %.4f, laplace %.4f, student-t %.4f: want the robust likelihoods lower", e[0], e[1], e[2])
	}
}

func TestGPBadLabels(t *testing.T) {
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	_, err := in.Eval("t.kml", `let x = [[0], [1], [2]]
let c = [0, 2, 1]
model g {
  f ~ gp(x, rbf(1))
  c ~ bernoulli_logit(f)
}
loglik(g, {})`)
	var b bytes.Buffer
	in.Sources().Print(&b, err)
	if want := "label 2 is 2; bernoulli_logit labels must be all in {0, 1} or all in {−1, 1}"; err == nil || !strings.Contains(b.String(), want) {
		t.Errorf("error %q, want it to contain %q", b.String(), want)
	}
}

// TestGPSampleLabelsApproximation: NUTS over the hyperparameters of a GP
// model runs on the exact marginal likelihood for Gaussian noise, and on
// the VB bound otherwise, which the summary says.
func TestGPSampleLabelsApproximation(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = [[-2], [-1.5], [-1], [-0.5], [0], [0.5], [1], [1.5], [2], [2.5]]
let y = [-0.9, -1.0, -0.8, -0.5, 0.1, 0.4, 0.8, 1.0, 0.9, 0.6]
let c = [0, 0, 0, 1, 0, 1, 1, 1, 1, 1]
model reg {
  ell ~ lognormal(0, 1)
  s ~ lognormal(-1, 1)
  f ~ gp(x, rbf(ell))
  y ~ normal(f, s)
}
model cls {
  ell ~ lognormal(0, 1)
  f ~ gp(x, 2 * rbf(ell))
  c ~ bernoulli_logit(f)
}
let p1 = sample(reg, chains: 2, warmup: 100, draws: 100, seed: 1)
let p2 = sample(cls, chains: 2, warmup: 100, draws: 100, seed: 1)
`)
	approx := func(post *infer.Posterior) bool {
		for _, w := range post.Summary.Warnings {
			if strings.Contains(w, "variational (VB) lower bound") {
				return true
			}
		}
		return false
	}
	if p := kmltest.Lookup[*infer.Posterior](t, in, "p1"); approx(p) {
		t.Errorf("Gaussian GP regression labelled approximate: %v", p.Summary.Warnings)
	}
	if p := kmltest.Lookup[*infer.Posterior](t, in, "p2"); !approx(p) {
		t.Errorf("GP classification not labelled approximate: %v", p.Summary.Warnings)
	}
}

// TestGPInducing: with every row of x as an inducing point the Nyström
// path is exact, so loglik matches the exact path; inducing points with a
// non-Gaussian likelihood are refused.
func TestGPInducing(t *testing.T) {
	in, _ := kmltest.Run(t, gpData+`
model h {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell), inducing: x)
  y ~ normal(f, sigma)
}
model e {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}
let v = {ell: [0.8, 1.3], a: 1.5, sigma: 0.3}
let lh = loglik(h, v)
let le = loglik(e, v)
let ph = predict(h, [[0.3, 0.2]], values: v)
let pe = predict(e, [[0.3, 0.2]], values: v)
`)
	lh, le := float64(kmltest.Lookup[eval.Num](t, in, "lh")), float64(kmltest.Lookup[eval.Num](t, in, "le"))
	if math.Abs(lh-le) > 1e-6 {
		t.Errorf("Nyström with every point %.10g, exact %.10g", lh, le)
	}
	ph, pe := kmltest.Lookup[*eval.Record](t, in, "ph"), kmltest.Lookup[*eval.Record](t, in, "pe")
	for _, f := range []string{"f_mean", "f_var", "y_var"} {
		a, _ := ph.Attr(f)
		b, _ := pe.Attr(f)
		if math.Abs(a.(*eval.Vec).Data[0]-b.(*eval.Vec).Data[0]) > 1e-6 {
			t.Errorf("%s: Nyström %v, exact %v", f, a, b)
		}
	}
	var out bytes.Buffer
	in2 := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	_, err := in2.Eval("t.kml", `let x = [[0], [1], [2]]
let c = [0, 1, 1]
model g {
  f ~ gp(x, rbf(1), inducing: 2)
  c ~ bernoulli_logit(f)
}
loglik(g, {})`)
	if err == nil || !strings.Contains(err.Error(), "inducing points (the Nyström path) are for normal observations") {
		t.Errorf("error %v, want the Nyström path refused for bernoulli_logit", err)
	}
}
