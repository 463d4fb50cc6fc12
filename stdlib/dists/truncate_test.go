package dists_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// stdPhi and stdCDF are the standard normal density and CDF, written here
// independently of runtime/dist.
func stdPhi(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
func stdCDF(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }

// checkPosterior compares the i-th row of a summary with a known mean and
// sd: the mean within 4 MCSE, the sd within 4 of its standard errors.
func checkPosterior(t *testing.T, in *eval.Interpreter, name string, i int, mean, sd float64) {
	t.Helper()
	p := kmltest.Lookup[*infer.SummaryVal](t, in, name).S.Params[i]
	if math.Abs(p.Mean-mean) > 4*p.MCSEMean {
		t.Errorf("%s: E[%s] = %v ± %v, want %v", name, p.Name, p.Mean, p.MCSEMean, mean)
	}
	if sd > 0 && math.Abs(p.SD-sd) > 4*p.SD/math.Sqrt(2*p.ESSBulk) {
		t.Errorf("%s: sd(%s) = %v (ess %v), want %v", name, p.Name, p.SD, p.ESSBulk, sd)
	}
}

// TestTruncatedPriorsSample: normal(0, 1, lower: 0) is the half-normal, with
// mean √(2/π) and sd √(1 − 2/π); normal(1, 2, lower: -1, upper: 2) has the
// truncated normal's closed-form moments; with a ~ uniform(0, 1) and
// b ~ normal(0, 1, upper: a), E[b | a] = −φ(a)/Φ(a), so E[b] is its
// integral over a, computed here by quadrature.
func TestTruncatedPriorsSample(t *testing.T) {
	in, _ := kmltest.Run(t, `
model half { x ~ normal(0, 1, lower: 0) }
model both { x ~ normal(1, 2, lower: -1, upper: 2) }
model moving {
  a ~ uniform(0, 1)
  b ~ normal(0, 1, upper: a)
}
let s1 = summary(sample(half, chains: 4, warmup: 500, draws: 1000, seed: 51))
let s2 = summary(sample(both, chains: 4, warmup: 500, draws: 1000, seed: 52))
let pm = sample(moving, chains: 4, warmup: 500, draws: 1000, seed: 53)
let s3 = summary(pm)
let a = pm.a
let b = pm.b
`)
	checkPosterior(t, in, "s1", 0, math.Sqrt(2/math.Pi), math.Sqrt(1-2/math.Pi))

	al, be := (-1.0-1)/2, (2.0-1)/2
	z := stdCDF(be) - stdCDF(al)
	d := (stdPhi(al) - stdPhi(be)) / z
	mean := 1 + 2*d
	sd := 2 * math.Sqrt(1+(al*stdPhi(al)-be*stdPhi(be))/z-d*d)
	checkPosterior(t, in, "s2", 0, mean, sd)

	eb := quad.Fixed(func(a float64) float64 { return -stdPhi(a) / stdCDF(a) }, 0, 1, 50, nil, 0)
	checkPosterior(t, in, "s3", 1, eb, 0)
	as, bs := kmltest.Lookup[*eval.Vec](t, in, "a").Data, kmltest.Lookup[*eval.Vec](t, in, "b").Data
	for i := range as {
		if !(bs[i] <= as[i]) {
			t.Fatalf("draw %d: b = %v above its bound a = %v", i, bs[i], as[i])
		}
	}
}

// TestTruncatedModelDensity checks the log density of the moving model
// against the formula written out by hand, and the gradient of models with
// truncated priors (moving and fixed bounds, one-sided and two-sided) and
// truncated observations (bounds that are parameters, vector bounds)
// against finite differences.
func TestTruncatedModelDensity(t *testing.T) {
	in, _ := kmltest.Run(t, `
model moving {
  a ~ uniform(0, 1)
  b ~ normal(0, 1, upper: a)
}
model g {
  mu ~ normal(0, 2)
  s ~ gamma(2, 2, upper: 3)
  lo ~ normal(-1, 0.5, upper: 0)
  z ~ student_t(4, mu, 1, lower: lo)
  w ~ gamma(3, s, lower: lo + 0.5, upper: 4)
  [0.5, 1.2, 0.1, 2.0] ~ normal(mu, s, lower: lo, upper: 3)
  [1.5, 2.5] ~ lognormal(mu, s, upper: [4, 5])
  [0.3, 0.9] ~ half_cauchy(s, upper: 1)
}
`)
	m := kmltest.Lookup[*eval.Model](t, in, "moving")
	c, err := model.CompileFor(in, m, nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		t.Fatal(err)
	}
	dens := c.NewDensityFor(in)
	for _, q := range [][]float64{{0.3, -0.8}, {-1.2, 2}} {
		got, err := dens.Value(q)
		if err != nil {
			t.Fatal(err)
		}
		a := 1 / (1 + math.Exp(-q[0]))
		b := a - math.Exp(q[1])
		want := math.Log(stdPhi(b)) - math.Log(stdCDF(a)) + math.Log(a*(1-a)) + q[1]
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("moving at %v: log density %v, want %v", q, got, want)
		}
	}
	kmltest.CheckModelGradient(t, in, "moving", 1e-6, []float64{0.3, -0.8}, []float64{-1.2, 2})
	kmltest.CheckModelGradient(t, in, "g", 1e-6,
		[]float64{0.2, -0.3, 0.1, 0.4, 0.2},
		[]float64{-0.5, 0.8, -1.1, -0.7, -1.3},
		[]float64{1.1, 0.1, 0.6, 1.9, 0.9})
}

// TestTruncatedValues: logpdf, draw, mean and sd of a truncated
// distribution outside a model.
func TestTruncatedValues(t *testing.T) {
	in, _ := kmltest.Run(t, `
let d = normal(0, 1, lower: 0)
let lp = logpdf(d, [0.5, -0.5])
let xs = draw(normal(2, 1, upper: -3), 2000, seed: 7)
let m = mean(normal(0, 1, lower: 0))
let s = sd(normal(0, 1, lower: 0))
`)
	lp := kmltest.Lookup[*eval.Vec](t, in, "lp").Data
	if want := math.Log(2 * stdPhi(0.5)); math.Abs(lp[0]-want) > 1e-12 || !math.IsInf(lp[1], -1) {
		t.Errorf("logpdf = %v, want [%v, -Inf]", lp, want)
	}
	// normal(2, 1) below −3 is 5 sd into its lower tail: the draws come from
	// inverting the CDF there. E[x] = 2 − φ(−5)/Φ(−5).
	xs := kmltest.Lookup[*eval.Vec](t, in, "xs").Data
	sum := 0.0
	for _, x := range xs {
		if x > -3 {
			t.Fatalf("draw %v above the upper bound −3", x)
		}
		sum += x
	}
	want := 2 - stdPhi(-5)/stdCDF(-5)
	if got := sum / float64(len(xs)); math.Abs(got-want) > 4*0.2/math.Sqrt(float64(len(xs))) {
		t.Errorf("mean of draws %v, want %v", got, want)
	}
	if m := float64(kmltest.Lookup[eval.Num](t, in, "m")); math.Abs(m-math.Sqrt(2/math.Pi)) > 1e-12 {
		t.Errorf("mean = %v", m)
	}
	if s := float64(kmltest.Lookup[eval.Num](t, in, "s")); math.Abs(s-math.Sqrt(1-2/math.Pi)) > 1e-12 {
		t.Errorf("sd = %v", s)
	}
	if s := kmltest.Lookup[*dists.DistVal](t, in, "d").String(); s != "normal(0, 1, lower: 0)" {
		t.Errorf("shown as %q", s)
	}
}

func TestTruncationErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"let d = normal(0, 1, lower: 1, upper: 0)", "t.kml:1:9: error: normal: lower must be less than upper, got lower = 1 and upper = 0"},
		{"let d = normal(0, 1, lowr: 0)", "t.kml:1:22: error: normal has no argument lowr"},
		{"let d = normal(0, 1, lower: \"a\")", "t.kml:1:22: error: normal: lower must be a number or a vector, got"},
		{"let d = poisson(3, lower: 0)", "t.kml:1:9: error: poisson: lower: and upper: truncate continuous families, and poisson is discrete"},
		{"let d = uniform(0, 3, upper: 2)", "t.kml:1:9: error: uniform: it has no closed-form CDF"},
		{"let d = gamma(2, 1, upper: -1)", "error: gamma: the bounds [-Inf, -1] miss its support"},
		{"let d = multi_normal([0, 0], [[1, 0], [0, 1]], lower: 0)", "error: multi_normal has no argument \"lower\""},
		{"let m = mean(gamma(2, 1, lower: 1))", "t.kml:1:14: error: mean: the mean of a truncated gamma is not computed"},
		{"let d = draw(flat(lower: 0))", "is improper"},
		{"model m {\n  nu ~ gamma(2, 0.1)\n  x ~ student_t(nu, 0, 1, lower: 0)\n}\nlet p = sample(m, draws: 10, warmup: 10)",
			"t.kml:3:17: error: student_t: truncation needs the derivative of the CDF in nu, which has no closed form; nu must be data here"},
		{"model m {\n  a ~ uniform(0, 1)\n  b ~ normal(0, 1, lower: a, upper: a - 2)\n}\nlet p = sample(m, draws: 10, warmup: 10)",
			"t.kml:3:7: error: normal: lower must be less than upper"},
		{"model m {\n  mu ~ normal(0, 1)\n  [1, -2] ~ normal(mu, 1, lower: 0)\n}\nlet p = sample(m, draws: 10, warmup: 10)",
			"t.kml:3:11: error: [1, -2] has element 2 = -2 outside the support of normal(0, 1, lower: 0)"},
		{"model m {\n  mu ~ normal(0, 1)\n  [1, 2] ~ flat(lower: 0)\n}\nlet p = sample(m, draws: 10, warmup: 10)",
			"t.kml:3:12: error: flat(lower: 0) is an improper prior for parameters"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}
