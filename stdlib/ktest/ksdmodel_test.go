package ktest_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model/dists"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/ktest"
)

// TestKSDModelAtValues: a model at given values is tested against its
// observed variable's distribution there, derived quantities included:
// the score is the finite-difference derivative of log t(x; ν, μ, e^{ls}),
// written out in the test, and the record is the one ksd_test gives for
// that distribution written out.
func TestKSDModelAtValues(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(student_t(3, 0.5, 1), 40, seed: 4)
model m(y) {
  nu ~ gamma(2, 0.1)
  mu ~ normal(0, 5)
  ls ~ normal(0, 1)
  s = exp(ls)
  y ~ student_t(nu, mu, s)
}
let r = ksd_test(x, m(y: x), at: {nu: 3.5, mu: 0.4, ls: -0.2}, seed: 2, bootstraps: 200)
let w = ksd_test(x, student_t(3.5, 0.4, exp(-0.2)), seed: 2, bootstraps: 200)
`)
	r := kmltest.Lookup[*eval.Record](t, in, "r")
	w := kmltest.Lookup[*eval.Record](t, in, "w")
	for _, f := range []string{"statistic", "pvalue", "ell"} {
		if a, b := kmltest.Num(t, r, f), kmltest.Num(t, w, f); a != b {
			t.Errorf("%s: model at values %v, the distribution written out %v", f, a, b)
		}
	}
	if o := kmltest.Field(t, r, "observed"); o != eval.Str("y") {
		t.Errorf("observed %v", o)
	}
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	inst, _ := kmltest.Run(t, `
model m(y) {
  nu ~ gamma(2, 0.1)
  mu ~ normal(0, 5)
  ls ~ normal(0, 1)
  s = exp(ls)
  y ~ student_t(nu, mu, s)
}
let mm = m(y: [0.1, 0.2])
`)
	mm := kmltest.Lookup[*eval.Model](t, inst, "mm")
	at := eval.NewRecord().Set("nu", eval.Num(3.5)).Set("mu", eval.Num(0.4)).Set("ls", eval.Num(-0.2))
	dist, name, err := ktest.ModelAtValues(inst.NewThread(nil), mm, at, "")
	if err != nil || name != "y" {
		t.Fatalf("ModelAtValues: %v, %q", err, name)
	}
	col := mat.NewDense(len(x), 1, append([]float64(nil), x...))
	sc, err := ktest.TargetScores(dist, col)
	if err != nil {
		t.Fatal(err)
	}
	const nu, mu = 3.5, 0.4
	s := math.Exp(-0.2)
	logt := func(v float64) float64 {
		z := (v - mu) / s
		return math.Log(math.Gamma((nu+1)/2)) - math.Log(math.Gamma(nu/2)) - 0.5*math.Log(nu*math.Pi) - math.Log(s) -
			(nu+1)/2*math.Log1p(z*z/nu)
	}
	const h = 1e-5
	for i, v := range x {
		want := (logt(v+h) - logt(v-h)) / (2 * h)
		if g := sc.At(i, 0); math.Abs(g-want) > 1e-6*(1+math.Abs(want)) {
			t.Errorf("x = %g: score %.10g, finite differences %.10g", v, g, want)
		}
	}
}

// TestKSDPosteriorPredictiveAgainstMixture: ksd_test of a posterior is
// the test against the posterior predictive (1/S) Σ_s N(x; μ_s, σ_s) over
// S evenly spaced draws, whose score the test takes by finite differences
// of that mixture's log density, written out from the draws.
func TestKSDPosteriorPredictiveAgainstMixture(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = draw(normal(1, 2), 30, seed: 5)
let x = draw(normal(1, 2), 50, seed: 6)
model m(y) {
  mu ~ normal(0, 5)
  sigma ~ lognormal(0, 1)
  y ~ normal(mu, sigma)
}
let post = sample(m(y: y), chains: 2, warmup: 150, draws: 100, seed: 1)
let r = ksd_test(x, post, draws: 30, seed: 3, bootstraps: 200)
`)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	r := kmltest.Lookup[*eval.Record](t, in, "r")
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	if kmltest.Num(t, r, "draws") != 30 || kmltest.Num(t, r, "posterior_draws") != 200 {
		t.Errorf("record %v", r)
	}
	var rows [][]float64
	for _, ch := range post.Values {
		rows = append(rows, ch...)
	}
	const S = 30
	var mus, sds []float64
	for s := range S {
		rec := post.Comp.Record(rows[s*len(rows)/S][:post.Comp.Columns()])
		mu, _ := rec.Attr("mu")
		sd, _ := rec.Attr("sigma")
		mus = append(mus, float64(mu.(eval.Num)))
		sds = append(sds, float64(sd.(eval.Num)))
	}
	logp := func(v float64) float64 {
		p := 0.0
		for s := range S {
			z := (v - mus[s]) / sds[s]
			p += math.Exp(-z*z/2) / (sds[s] * math.Sqrt(2*math.Pi))
		}
		return math.Log(p / S)
	}
	const h = 1e-5
	xm := mat.NewDense(len(x), 1, append([]float64(nil), x...))
	sc := mat.NewDense(len(x), 1, nil)
	for i, v := range x {
		sc.Set(i, 0, (logp(v+h)-logp(v-h))/(2*h))
	}
	want, err := rktest.KSDTest(context.Background(), xm, sc, rktest.KSDSettings{Ell: kmltest.Num(t, r, "ell"), Bootstraps: 200, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := kmltest.Num(t, r, "statistic"); math.Abs(got-want.Statistic) > 1e-7*(1e-3+math.Abs(want.Statistic)) {
		t.Errorf("statistic %.10g, with the mixture's finite-difference score %.10g", got, want.Statistic)
	}
	if got := kmltest.Num(t, r, "pvalue"); got != want.PValue {
		t.Errorf("p-value %v, with the mixture's score %v", got, want.PValue)
	}
}

// TestPredictiveScoresMultiNormal: the predictive score of a mixture of
// two-dimensional normals against finite differences of the mixture's log
// density, written out (including rows far in one component's tail, where
// the weights are near 0 and 1).
func TestPredictiveScoresMultiNormal(t *testing.T) {
	type comp struct{ mu, L []float64 }
	comps := []comp{{[]float64{0, 0}, []float64{1, 0, 0.5, 0.8}}, {[]float64{3, -1}, []float64{0.6, 0, -0.2, 1.5}},
		{[]float64{-2, 2}, []float64{2, 0, 1, 0.3}}}
	var ds []dists.Distribution
	for _, c := range comps {
		mn, err := dists.NewMultiNormal(&eval.Vec{Data: c.mu}, mat.NewTriDense(2, mat.Lower, c.L), "")
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, mn)
	}
	logN := func(c comp, x []float64) float64 {
		// Σ = LLᵀ; solve L z = x − μ.
		l11, l21, l22 := c.L[0], c.L[2], c.L[3]
		z1 := (x[0] - c.mu[0]) / l11
		z2 := (x[1] - c.mu[1] - l21*z1) / l22
		return -(z1*z1+z2*z2)/2 - math.Log(2*math.Pi) - math.Log(l11*l22)
	}
	logp := func(x []float64) float64 {
		p := 0.0
		for _, c := range comps {
			p += math.Exp(logN(c, x))
		}
		return math.Log(p / float64(len(comps)))
	}
	pts := [][]float64{{0, 0}, {1, -0.5}, {3, -1}, {-2, 2}, {6, -3}, {-5, 4}, {1.5, 1.5}}
	x := mat.NewDense(len(pts), 2, nil)
	for i, p := range pts {
		x.SetRow(i, p)
	}
	sc, err := ktest.PredictiveScores(ds, x)
	if err != nil {
		t.Fatal(err)
	}
	const h = 1e-5
	for i, p := range pts {
		for c := 0; c < 2; c++ {
			q := append([]float64(nil), p...)
			q[c] += h
			fp := logp(q)
			q[c] -= 2 * h
			want := (fp - logp(q)) / (2 * h)
			if g := sc.At(i, c); math.Abs(g-want) > 1e-5*(1+math.Abs(want)) {
				t.Errorf("row %v coordinate %d: score %.10g, finite differences %.10g", p, c, g, want)
			}
		}
	}
}

// TestKSDPosteriorPredictivePower: fitted to half of a Student-t(3)
// sample and tested on the other half (n = 200 each), a normal model's
// predictive is rejected and a Student-t model's is not (seeded).
func TestKSDPosteriorPredictivePower(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = draw(student_t(3, 1, 0.5), 400, seed: 11)
let fit_half = y[1:200]
let test_half = y[201:400]
model normal_m(y) {
  mu ~ normal(0, 5)
  sigma ~ lognormal(0, 1)
  y ~ normal(mu, sigma)
}
model t_m(y) {
  nu ~ gamma(2, 0.1)
  mu ~ normal(0, 5)
  sigma ~ lognormal(0, 1)
  y ~ student_t(nu, mu, sigma)
}
let pn = sample(normal_m(y: fit_half), chains: 2, warmup: 150, draws: 100, seed: 1)
let pt = sample(t_m(y: fit_half), chains: 2, warmup: 150, draws: 100, seed: 2)
let rn = ksd_test(test_half, pn, seed: 3, bootstraps: 300)
let rt = ksd_test(test_half, pt, seed: 3, bootstraps: 300)
`)
	pn := kmltest.Num(t, kmltest.Lookup[*eval.Record](t, in, "rn"), "pvalue")
	pt := kmltest.Num(t, kmltest.Lookup[*eval.Record](t, in, "rt"), "pvalue")
	t.Logf("normal model p = %.3f, Student-t model p = %.3f", pn, pt)
	if pn > 0.01 {
		t.Errorf("normal model's predictive for t(3) data: p = %v", pn)
	}
	if pt < 0.05 {
		t.Errorf("Student-t model's predictive for t(3) data: p = %v", pt)
	}
}

func TestKSDModelErrors(t *testing.T) {
	const models = `
model m(y) {
  mu ~ normal(0, 5)
  y ~ normal(mu, 1)
}
model reg(x, y) {
  b ~ normal(0, 5)
  y ~ normal(b * x, 1)
}
model two(y, z) {
  mu ~ normal(0, 5)
  y ~ normal(mu, 1)
  z ~ normal(mu, 2)
}
`
	for _, c := range []struct{ src, want string }{
		{`ksd_test([1, 2, 3], m(y: [1, 2]))`, "give them with at: {mu: ...}"},
		{`ksd_test([1, 2, 3], m)`, "takes data: call it with its data, m(y: ...)"},
		{`ksd_test([1, 2, 3], m(y: [1, 2]), at: {mu: 0, sd: 1})`, `has no parameter "sd"`},
		{`ksd_test([1, 2, 3], m(y: [1, 2]), at: {})`, "no value of parameter mu"},
		{`ksd_test([1, 2, 3], reg(x: [1, 2], y: [1, 2]), at: {b: 1})`, "vary by observation"},
		{`ksd_test([1, 2, 3], two(y: [1, 2], z: [1, 2]), at: {mu: 0})`, "observes y, z: say which with observed:"},
		{`ksd_test([1, 2, 3], two(y: [1, 2], z: [1, 2]), at: {mu: 0}, observed: "w")`, `does not observe "w"`},
		{`ksd_test([1, 2, 3], normal(0, 1), at: {mu: 0})`, "is not a model"},
		{`ksd_test([[1, 2], [3, 4]], m(y: [1, 2]), at: {mu: 0})`, "univariate but the data have 2 columns"},
	} {
		kmltest.ExpectError(t, models+c.src, c.want)
	}
	// observed: picks the statement.
	in, _ := kmltest.Run(t, models+`let r = ksd_test([1, 2, 3, 0.5], two(y: [1, 2], z: [1, 2]), at: {mu: 0}, observed: "z", seed: 1, bootstraps: 50)`)
	if tg := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "r"), "target"); tg != eval.Str("model two at {mu: 0}: z ~ normal(0, 2)") {
		t.Errorf("target %v", tg)
	}
}

// TestKSDPosteriorPredictiveLevel: the rejection rate at α = 0.05 of
// ksd_test against a posterior predictive, the model fitted by NUTS on
// nfit rows and tested on 100 others from the same distribution, over 200
// seeded replications, for a normal model of N(0, 1) data and a Student-t
// model of Student-t(3) data. The predictive is fitted, not the data's
// distribution, so H0 holds only as nfit grows: with nfit = 1000 the rate
// must lie within 3 binomial SE of α (0.004–0.096); with nfit = 100 it is
// printed (the fit's error is then as large as what 100 test rows
// resolve, and the test rejects about one time in five).
func TestKSDPosteriorPredictiveLevel(t *testing.T) {
	fulltest.Require(t, "600 NUTS fits and KSD tests, about three CPU-minutes")
	const reps = 200
	se := math.Sqrt(0.05 * 0.95 / reps)
	for _, c := range []struct {
		name, data, model string
		nfit              int
	}{
		{"normal", "normal(0, 1)", "mu ~ normal(0, 5)\n  sigma ~ lognormal(0, 1)\n  y ~ normal(mu, sigma)", 100},
		{"normal", "normal(0, 1)", "mu ~ normal(0, 5)\n  sigma ~ lognormal(0, 1)\n  y ~ normal(mu, sigma)", 1000},
		{"student-t", "student_t(3, 0, 1)", "nu ~ gamma(2, 0.1)\n  mu ~ normal(0, 5)\n  sigma ~ lognormal(0, 1)\n  y ~ student_t(nu, mu, sigma)", 1000},
	} {
		rej := 0
		for rep := range reps {
			src := fmt.Sprintf(`
let y = draw(%s, %d, seed: %d)
model m(y) {
  %s
}
let post = sample(m(y: y[1:%d]), chains: 1, warmup: 200, draws: 200, seed: %d)
let r = ksd_test(y[%d:%d], post, seed: %d, bootstraps: 500)
`, c.data, c.nfit+100, 1000+rep, c.model, c.nfit, rep, c.nfit+1, c.nfit+100, rep)
			in, _ := kmltest.Run(t, src)
			if kmltest.Num(t, kmltest.Lookup[*eval.Record](t, in, "r"), "pvalue") <= 0.05 {
				rej++
			}
		}
		rate := float64(rej) / reps
		t.Logf("%s model, %s data, fitted on %d rows, tested on 100: rejection rate %.3f over %d replications (SE %.4f)", c.name, c.data, c.nfit, rate, reps, se)
		if c.nfit >= 1000 && math.Abs(rate-0.05) > 3*se {
			t.Errorf("%s: rejection rate %.3f is more than 3 SE from 0.05", c.name, rate)
		}
	}
}
