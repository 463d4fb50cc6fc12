package model_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// TestPointwiseCollector checks the log likelihood point by point against
// the densities written out: a vector observation is one point per
// element (categories too), a scalar one point, a multivariate
// observation one point for the statement; priors are not points.
func TestPointwiseCollector(t *testing.T) {
	in := eval.New(eval.Options{})
	src := `
let y = [-1.0, 0.5, 2.0]
let w = [0.3, -0.2]
let cats = [1, 3, 3]
let W = [[0.3, -0.2], [1.0, 0.5]]
model m {
  mu ~ normal(0, 10)
  sigma ~ exponential(1)
  y ~ normal(mu, sigma)
  1.25 ~ normal(mu, 2)
  w ~ multi_normal([mu, mu], [[1.0, 0.0], [0.0, 4.0]])
  cats ~ categorical_logit([mu, 0.0, -mu])
  W ~ multi_normal([mu, 0.0], [[1.0, 0.0], [0.0, 4.0]])
}
`
	if _, err := in.Eval("pointwise.kml", src); err != nil {
		t.Fatal(err)
	}
	v, _ := in.Lookup("m")
	c, err := model.CompileFor(in, v.(*eval.Model), nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewDensityFor(in)
	mu, sigma := 0.4, math.Exp(-0.3)
	pc := model.NewPointwiseCollector(d)
	if err := d.Run([]float64{mu, -0.3}, pc); err != nil || pc.Refused != nil {
		t.Fatal(err, pc.Refused)
	}
	lnorm := func(x, m, s float64) float64 {
		z := (x - m) / s
		return -0.5*math.Log(2*math.Pi) - math.Log(s) - 0.5*z*z
	}
	lse := math.Log(math.Exp(mu) + 1 + math.Exp(-mu))
	want := []float64{lnorm(-1, mu, sigma), lnorm(0.5, mu, sigma), lnorm(2, mu, sigma), lnorm(1.25, mu, 2),
		lnorm(0.3, mu, 1) + lnorm(-0.2, mu, 2), mu - lse, -mu - lse, -mu - lse,
		lnorm(0.3, mu, 1) + lnorm(-0.2, 0, 2), lnorm(1, mu, 1) + lnorm(0.5, 0, 2)}
	if len(pc.Out) != len(want) {
		t.Fatalf("%d points %v, want %d", len(pc.Out), pc.Out, len(want))
	}
	for i := range want {
		if math.Abs(pc.Out[i]-want[i]) > 1e-12 {
			t.Errorf("point %d: %v, want %v", i+1, pc.Out[i], want[i])
		}
	}
	pc.Reset()
	if err := d.Run([]float64{mu, -0.3}, pc); err != nil || len(pc.Out) != len(want) {
		t.Fatalf("after Reset: %v, %d points", err, len(pc.Out))
	}
}

// TestPointwiseRefusesLatent: a latent GP whose leave-one-out is not
// available yet (a multi-class GP) says so (a GP regression's exact one is
// stdlib/gp's TestGPLOOMixesTheExactConditionals, the approximations'
// TestGPLOOLatentMixesTheCavities).
func TestPointwiseRefusesLatent(t *testing.T) {
	in := eval.New(eval.Options{})
	src := `
let X = [[0.0], [1.0], [2.0]]
let c = [1, 2, 3]
model g {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), classes: 3)
  c ~ categorical_logit(f)
}
`
	if _, err := in.Eval("latent.kml", src); err != nil {
		t.Fatal(err)
	}
	v, _ := in.Lookup("g")
	c, err := model.CompileFor(in, v.(*eval.Model), nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true, Latent: model.Objective{Approx: "laplace"}})
	if err != nil {
		t.Fatal(err)
	}
	d := c.NewDensityFor(in)
	pc := model.NewPointwiseCollector(d)
	if err := d.Run([]float64{0}, pc); err != nil {
		t.Fatal(err)
	}
	if pc.Refused == nil || !strings.Contains(pc.Refused.Error(), "not yet") {
		t.Fatalf("refusal %v", pc.Refused)
	}
}
