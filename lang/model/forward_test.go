package model_test

import (
	"math"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

// forwardModel evaluates src and returns its model m.
func forwardModel(t *testing.T, src string) (*eval.Interpreter, *eval.Model) {
	t.Helper()
	in := eval.New(eval.Options{})
	if _, err := in.Eval("fwd.kml", src); err != nil {
		t.Fatal(err)
	}
	v, _ := in.Lookup("m")
	return in, v.(*eval.Model)
}

// TestForwardHierarchicalMoments draws the prior predictive of
// mu ~ N(1, 2²), theta ~ N(mu, 3²), y_i ~ N(theta, 0.5²) by forward
// sampling. In closed form y_i ~ N(1, 4 + 9 + 0.25 = 13.25), y_1 and y_2
// have covariance 4 + 9 = 13 (they share mu and theta), and
// cov(mu, theta) = 4: that theta's prior read the mu drawn before it (the
// ancestral order). With 20000 seeded draws the tolerances are about 4
// Monte Carlo standard errors: 0.11 for the mean (sd 3.64/√20000 =
// 0.026), 0.55 for a variance or covariance (≈ 13.25·√(2/20000) = 0.13).
func TestForwardHierarchicalMoments(t *testing.T) {
	in, m := forwardModel(t, `
let y = [0.3, -0.2, 1.1]
model m {
  mu ~ normal(1, 2)
  theta ~ normal(mu, 3)
  y ~ normal(theta, 0.5)
}
`)
	rng := rand.New(rand.NewPCG(36, 1))
	th := in.NewThread(nil)
	const n = 20000
	var mus, thetas, y1, y2 []float64
	for range n {
		fd, err := model.Forward(th, m, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(fd.Params) != 2 || fd.Params[0].Name != "mu" || fd.Params[1].Name != "theta" || len(fd.Data) != 1 {
			t.Fatalf("forward draw %+v: want mu, theta and one replicate", fd)
		}
		rep := fd.Data[0].Value.(*eval.Vec).Data
		if len(rep) != 3 || fd.Data[0].Name != "y" {
			t.Fatalf("replicate %s of %d values, want y of 3", fd.Data[0].Name, len(rep))
		}
		mus = append(mus, float64(fd.Params[0].Value.(eval.Num)))
		thetas = append(thetas, float64(fd.Params[1].Value.(eval.Num)))
		y1, y2 = append(y1, rep[0]), append(y2, rep[1])
	}
	check := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %.2f", what, got, want, tol)
		}
	}
	check("mean y1", mean(y1), 1, 0.11)
	check("var y1", cov(y1, y1), 13.25, 0.55)
	check("var y2", cov(y2, y2), 13.25, 0.55)
	check("cov(y1, y2)", cov(y1, y2), 13, 0.55)
	check("cov(mu, theta)", cov(mus, thetas), 4, 0.25)
	t.Logf("mean y1 %.4f (1), var y1 %.4f (13.25), cov(y1, y2) %.4f (13), cov(mu, theta) %.4f (4)", mean(y1), cov(y1, y1), cov(y1, y2), cov(mus, thetas))
	check("var theta", cov(thetas, thetas), 13, 0.55)
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func cov(xs, ys []float64) float64 {
	mx, my := mean(xs), mean(ys)
	s := 0.0
	for i := range xs {
		s += (xs[i] - mx) * (ys[i] - my)
	}
	return s / float64(len(xs)-1)
}

// TestForwardGiven takes the parameters from a record (a posterior draw)
// and draws only the data: with sigma tiny the replicate is mu, the
// derived quantity follows the given values, and a flat() prior (which
// has no draws) does not matter.
func TestForwardGiven(t *testing.T) {
	in, m := forwardModel(t, `
let y = [1.0, 2.0]
model m {
  mu ~ flat()
  sigma ~ exponential(1)
  s2 = sigma / 1000000
  y ~ normal(mu, s2)
}
`)
	given := eval.NewRecord().Set("mu", eval.Num(7)).Set("sigma", eval.Num(1))
	fd, err := model.Forward(in.NewThread(nil), m, rand.New(rand.NewPCG(36, 2)), given)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range fd.Data[0].Value.(*eval.Vec).Data {
		if math.Abs(x-7) > 1e-4 {
			t.Errorf("replicate %v, want 7 ± 1e-4", x)
		}
	}
}

// TestForwardRefuses: each statement forward sampling cannot draw is
// named with its position.
func TestForwardRefuses(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"target", `
let y = [1.0, 2.0]
model m {
  mu ~ normal(0, 1)
  target += -mu * mu
  y ~ normal(mu, 1)
}`, `^fwd\.kml:5:10: error: .*target \+=.*no generative form`},
		{"flat", `
let y = [1.0, 2.0]
model m {
  mu ~ flat()
  y ~ normal(mu, 1)
}`, `^fwd\.kml:4:6: error: cannot draw mu from its prior: flat\(\) is improper`},
		{"bke", `
let x = [[0.1, 0.2], [0.3, 0.1], [0.5, 0.9]]
let z = x[1:2, :]
model m {
  ell ~ gamma(2, 2)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}`, `^fwd\.kml:6:5: error: cannot draw x: bke.*observation family.*pseudolikelihood`},
		{"multiclass", `
let X = [[0.0], [1.0], [2.0]]
let c = [1, 2, 1]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), classes: 2)
  c ~ categorical_logit(f)
}`, `^fwd\.kml:7:5: error: cannot draw c: it observes a multi-class latent GP`},
		{"nystrom", `
let X = [[0.0], [1.0], [2.0]]
let y = [0.1, 0.3, -0.2]
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), inducing: 2)
  y ~ normal(f, 0.1)
}`, `^fwd\.kml:7:5: error: cannot draw y: .*Nyström path`},
	} {
		in, m := forwardModel(t, tc.src)
		_, err := model.Forward(in.NewThread(nil), m, rand.New(rand.NewPCG(36, 3)), nil)
		if err == nil {
			t.Errorf("%s: forward sampling should be refused", tc.name)
			continue
		}
		if !regexp.MustCompile(tc.want).MatchString(err.Error()) {
			t.Errorf("%s: error\n%v\nwant it to match %s", tc.name, err, tc.want)
		}
	}
}

// TestForwardMultivariate draws the other families forward and compares
// their moments with the closed form (20000 seeded draws; tolerances about
// 4 Monte Carlo standard errors): dirichlet([1, 2, 3]) has mean αᵢ/6
// (sd ≤ 0.19, MCSE 0.0014, tolerance 0.006); each row of
// multi_normal([1, -1], [[1, 0.5], [0.5, 2]]) has that mean and covariance
// (tolerances 0.06 for means and 0.1 for second moments); a categorical
// with log-odds log(p) has class frequencies p (tolerance 0.015); and
// ordered(normal(0, 1)) draws increase.
func TestForwardMultivariate(t *testing.T) {
	in, m := forwardModel(t, `
let Y = [[0.1, 0.2], [0.3, -0.1]]
let c = [1, 2, 3, 1, 2]
model m {
  p[3] ~ dirichlet([1, 2, 3])
  o[4] ~ ordered(normal(0, 1))
  Y ~ multi_normal([1, -1], [[1, 0.5], [0.5, 2]])
  c ~ categorical_logit(log(p))
}
`)
	rng := rand.New(rand.NewPCG(36, 4))
	th := in.NewThread(nil)
	const n = 20000
	var p1, p3, a, b []float64
	freq := make([]float64, 3)
	want := make([]float64, 3)
	for range n {
		fd, err := model.Forward(th, m, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := fd.Params[0].Value.(*eval.Vec).Data
		p1, p3 = append(p1, p[0]), append(p3, p[2])
		o := fd.Params[1].Value.(*eval.Vec).Data
		for i := 1; i < len(o); i++ {
			if o[i] < o[i-1] {
				t.Fatalf("ordered draw %v does not increase", o)
			}
		}
		y := fd.Data[0].Value.(*eval.Mat)
		if r, c := y.Dims(); r != 2 || c != 2 {
			t.Fatalf("replicate of Y is %d×%d, want 2×2", r, c)
		}
		a, b = append(a, y.M.At(1, 0)), append(b, y.M.At(1, 1))
		for _, k := range fd.Data[1].Value.(*eval.Vec).Data {
			freq[int(k)-1]++
		}
		for k := range want {
			want[k] += p[k] * 5
		}
	}
	check := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.4f, want %.4f ± %.3f", what, got, want, tol)
		}
	}
	check("mean p1", mean(p1), 1.0/6, 0.006)
	check("mean p3", mean(p3), 0.5, 0.006)
	check("mean Y[2,1]", mean(a), 1, 0.06)
	check("mean Y[2,2]", mean(b), -1, 0.06)
	check("var Y[2,1]", cov(a, a), 1, 0.1)
	check("var Y[2,2]", cov(b, b), 2, 0.1)
	check("cov Y[2,]", cov(a, b), 0.5, 0.1)
	for k := range freq {
		check("class frequency", freq[k]/(5*n), want[k]/(5*n), 0.015)
	}
}
