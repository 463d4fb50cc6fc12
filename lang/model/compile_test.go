package model_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	_ "github.com/kml-lang/kml/stdlib"
)

// compile runs src and compiles the model named m in it.
func compile(t *testing.T, src string, fixed map[string]eval.Value, terms model.Terms) (*eval.Interpreter, *model.Compiled) {
	t.Helper()
	in := eval.New(eval.Options{})
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatalf("eval: %v", err)
	}
	v, ok := in.Lookup("m")
	if !ok {
		t.Fatal("no model m")
	}
	c, err := model.CompileFor(in, v.(*eval.Model), fixed, terms)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return in, c
}

var all = model.Terms{Prior: true, Likelihood: true, Jacobian: true}

// gradientModels exercise every path a gradient takes through a model:
// each kind of transform, vector parameters with hierarchical priors,
// arithmetic and indexing on parameters, the data matrix product,
// vectorised distribution parameters, mixtures and discrete observations.
var gradientModels = []string{
	`let y = [0.3, -1.2, 2.2, 0.7]
model m {
  mu ~ normal(0, 2)
  s ~ gamma(2, 1)
  y ~ normal(mu, s)
}`,
	`let x = [[1, 0.5], [1, -0.3], [1, 2.0], [1, 1.1]]
let y = [0.9, 0.1, 2.5, 1.6]
model m {
  beta[2] ~ normal(0, 3)
  s ~ half_normal(1)
  nu ~ gamma(4, 0.5)
  f = x @ beta
  y ~ student_t(nu, f, s)
}`,
	`let y = [1, 0, 1, 1, 0]
let x = [0.5, -1, 2, 0.3, -0.7]
model m {
  a ~ uniform(-1, 3)
  b ~ laplace(0, 1)
  y ~ bernoulli_logit(a + b * x - a^2 / 4)
}`,
	`model m {
  mu ~ normal(0, 1)
  tau ~ inv_gamma(3, 2)
  theta[3] ~ normal(mu, tau)
  p ~ beta(2, 3)
  z ~ mixture([0.3, 0.7], [normal(-1, 1), normal(theta[2], 0.5)])
  w = (theta[1] - theta[3]) * p
  [0.2, -0.4] ~ normal(w, 1 + p)
}`,
	`let y = [2.1, 0.4, 1.3]
model m {
  r ~ exponential(1)
  k ~ lognormal(0, 1)
  y ~ gamma(k, r)
  t ~ cauchy(0, 2)
  u ~ half_cauchy(1)
  [0.5] ~ normal(t, u)
}`,
	`let x = [[1, 0.5, 2], [0.3, -1, 0.2]]
let y = [0.4, -0.2, 1.1]
let z = [1.5, 0.2]
model m {
  b[2] ~ normal(0, 1)
  s ~ half_normal(1)
  y ~ normal(b @ x, s)
  z ~ normal(x @ (b @ x), 2 + b @ b)
}`,
	`let y = [-2.1, 0.3, 1.9, 2.4, -1.7, 0.2]
model m {
  w ~ beta(2, 2)
  mu[2] ~ ordered(normal(0, 3))
  s ~ gamma(2, 2)
  y ~ mixture([w, 1 - w], [normal(mu[1], s), laplace(mu[2], s)])
}`,
	garchModel,
}

// garchModel is a GARCH(1,1) likelihood written with iterate: its variance
// recursion is on the tape.
const garchModel = `let y = [0.3, -1.2, 2.2, 0.7, -0.4, 1.1]
fn garch(s, t, p) = p.omega + p.alpha * (y[t] - p.mu)^2 + p.beta * s
model m {
  mu ~ normal(0, 2)
  omega ~ gamma(2, 2)
  alpha ~ uniform(0, 1)
  beta ~ uniform(0, 1 - alpha)
  s2 = iterate(garch, 1, 5, with: {mu: mu, omega: omega, alpha: alpha, beta: beta})
  y[2:6] ~ normal(mu, sqrt(s2))
}`

// iterate inside a model is the recursion written out by hand.
func TestIterateInAModelIsTheRecursion(t *testing.T) {
	unrolled := strings.Replace(garchModel, "s2 = iterate(garch, 1, 5, with: {mu: mu, omega: omega, alpha: alpha, beta: beta})",
		`s1 = omega + alpha * (y[1] - mu)^2 + beta
  s2b = omega + alpha * (y[2] - mu)^2 + beta * s1
  s3 = omega + alpha * (y[3] - mu)^2 + beta * s2b
  s4 = omega + alpha * (y[4] - mu)^2 + beta * s3
  s5 = omega + alpha * (y[5] - mu)^2 + beta * s4
  s2 = [s1, s2b, s3, s4, s5]`, 1)
	in1, c1 := compile(t, garchModel, nil, all)
	in2, c2 := compile(t, unrolled, nil, all)
	d1, d2 := c1.NewDensityFor(in1), c2.NewDensityFor(in2)
	q := []float64{0.2, -0.3, 0.4, -0.1}
	g1, g2 := make([]float64, 4), make([]float64, 4)
	v1, err1 := d1.LogDensity(g1, q)
	v2, err2 := d2.LogDensity(g2, q)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if math.Abs(v1-v2) > 1e-12 {
		t.Errorf("log density %v, written out %v", v1, v2)
	}
	for i := range g1 {
		if math.Abs(g1[i]-g2[i]) > 1e-12 {
			t.Errorf("gradient %v, written out %v", g1, g2)
			break
		}
	}
}

func TestModelGradientsMatchFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for i, src := range gradientModels {
		for _, terms := range []model.Terms{all, {Prior: true, Likelihood: true}, {Likelihood: true}} {
			in, c := compile(t, src, nil, terms)
			d := c.NewDensityFor(in)
			q := make([]float64, c.Dim())
			grad := make([]float64, c.Dim())
			for trial := 0; trial < 4; trial++ {
				for j := range q {
					q[j] = rng.Float64()*2 - 1
				}
				lp, err := d.LogDensity(grad, q)
				if err != nil {
					t.Fatalf("model %d: %v", i, err)
				}
				if v, _ := d.Value(q); v != lp {
					t.Errorf("model %d: Value %v, LogDensity %v", i, v, lp)
				}
				want := fd.Gradient(nil, func(q []float64) float64 {
					v, err := d.Value(q)
					if err != nil {
						t.Fatal(err)
					}
					return v
				}, q, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for j := range q {
					if math.Abs(grad[j]-want[j]) > 1e-5*math.Max(1, math.Abs(want[j])) {
						t.Errorf("model %d %+v, %s: gradient %v, finite differences %v", i, terms, c.Names()[j], grad[j], want[j])
					}
				}
			}
		}
	}
}

func TestJacobianOfTransforms(t *testing.T) {
	// With only a prior, the density of u = log(x) under x ~ gamma(a, b) is
	// gamma's log density at e^u plus u, and for x ~ uniform(lo, hi) the
	// scaled-logit Jacobian makes u logistic-distributed.
	in, c := compile(t, "model m {\n  x ~ gamma(3, 2)\n  v ~ uniform(-1, 3)\n}", nil, all)
	d := c.NewDensityFor(in)
	for _, q := range [][]float64{{0.3, -0.2}, {-1.5, 2.0}} {
		x := math.Exp(q[0])
		s := 1 / (1 + math.Exp(-q[1]))
		want := 3*math.Log(2) - math.Log(2) + 2*math.Log(x) - 2*x + q[0] + // gamma(3,2), Γ(3) = 2
			-math.Log(4) + math.Log(4*s*(1-s)) // uniform density times dx/du
		got, err := d.Value(q)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("q = %v: %v, want %v", q, got, want)
		}
	}
	if names := strings.Join(c.Names(), ","); names != "x,v" {
		t.Errorf("names %s", names)
	}
	cons := c.Constrain(nil, []float64{0, 0})
	if cons[0] != 1 || cons[1] != 1 {
		t.Errorf("constrained origin %v, want [1 1]", cons)
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"model m {\n  a ~ 3\n}", "2:7: error: the prior of a must be a distribution, got number"},
		{"model m {\n  a ~ bernoulli_logit(0)\n}", "a has a discrete prior bernoulli_logit"},
		{"model m {\n  a ~ normal(0, 1)\n  b ~ uniform(0, a)\n}", "3:7: error: uniform: lo must be less than hi, got lo = 0 and hi = 0"},
		{"let y = [1, -2]\nmodel m {\n  a ~ gamma(1, 1)\n  y ~ gamma(a, 1)\n}", "4:5: error: y has element 2 = -2 outside the support of gamma"},
		{"let y = [1, 2]\nmodel m {\n  w[3] ~ normal(0, 1)\n  y ~ normal(w, 1)\n}", "y has 2 values but the parameters of normal have 3"},
		{"model m {\n  w[2] ~ normal([0, 1, 2], 1)\n}", "the prior of w has parameters of length 3 but w has 2 elements"},
		{"let y = [[1, 2], [3, 4]]\nmodel m {\n  a ~ normal(0, 1)\n  y ~ normal(a, 1)\n}", "y is a 2×2 matrix; a univariate distribution needs a vector"},
		{"model m {\n  w[0] ~ normal(0, 1)\n}", "the size of w[...] must be a whole number ≥ 1"},
	}
	for _, c := range cases {
		in := eval.New(eval.Options{})
		_, err := in.Eval("t.kml", c.src)
		if err == nil {
			v, _ := in.Lookup("m")
			_, err = model.CompileFor(in, v.(*eval.Model), nil, all)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
}
