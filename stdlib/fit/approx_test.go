package fit_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// conjugate is a normal mean with known sd 1.5 and a normal(1, 2) prior:
// the posterior is normal with precision 1/4 + n/2.25 and mean
// (1/4 + Σy/2.25)/precision.
const conjugate = `
let y = [1.2, 0.4, 2.1, 1.7, 0.9]
model m {
  mu ~ normal(1, 2)
  y ~ normal(mu, 1.5)
}
`

func conjugateMoments() (mean, sd float64) {
	y := []float64{1.2, 0.4, 2.1, 1.7, 0.9}
	sum := 0.0
	for _, v := range y {
		sum += v
	}
	prec := 1.0/4 + float64(len(y))/2.25
	return (1.0/4 + sum/2.25) / prec, math.Sqrt(1 / prec)
}

// moments are the mean and sd of column k of a posterior's draws.
func moments(p *infer.Posterior, k int) (mean, sd float64) {
	n := 0.0
	for _, ch := range p.Values {
		for _, d := range ch {
			mean += d[k]
			n++
		}
	}
	mean /= n
	for _, ch := range p.Values {
		for _, d := range ch {
			sd += (d[k] - mean) * (d[k] - mean)
		}
	}
	return mean, math.Sqrt(sd / (n - 1))
}

// TestLaplaceIsTheConjugatePosterior: on a conjugate normal model the
// Laplace approximation is the posterior, so its mode and variance equal
// the closed form (the Hessian by central differences of a linear
// gradient: to 1e-8), and its 4000 seeded draws have the closed form's
// mean within 4 standard errors and sd within 5% (the sd's standard error
// is 1.1%).
func TestLaplaceIsTheConjugatePosterior(t *testing.T) {
	in, _ := kmltest.Run(t, conjugate+`let p = laplace_sample(m, draws: 4000, seed: 3)`)
	p := kmltest.Lookup[*infer.Posterior](t, in, "p")
	wm, wsd := conjugateMoments()
	a := p.Approx
	if a == nil || a.Method != "laplace" {
		t.Fatalf("not marked laplace: %+v", a)
	}
	if math.Abs(a.Mode[0]-wm) > 1e-6 || math.Abs(a.Cov[0]-wsd*wsd) > 1e-8 {
		t.Errorf("mode %v variance %v, want %v and %v", a.Mode[0], a.Cov[0], wm, wsd*wsd)
	}
	m, sd := moments(p, 0)
	if math.Abs(m-wm) > 4*wsd/math.Sqrt(4000) || math.Abs(sd-wsd) > 0.05*wsd {
		t.Errorf("draws: mean %v sd %v, want %v and %v", m, sd, wm, wsd)
	}
	if !math.IsInf(a.Khat, -1) {
		t.Errorf("k̂ = %v; q is the posterior, so the ratios are constant", a.Khat)
	}
}

// TestLaplaceDrawsAreConstrained: a gamma prior's parameter is drawn on
// the log scale and mapped back: every draw positive, and exactly exp of
// its unconstrained value.
func TestLaplaceDrawsAreConstrained(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1.2, 0.4, 2.1, 1.7, 0.9]
model m {
  mu ~ normal(0, 2)
  sigma ~ gamma(2, 2)
  y ~ normal(mu, sigma)
}
let p = laplace_sample(m, draws: 500, seed: 4)
`)
	p := kmltest.Lookup[*infer.Posterior](t, in, "p")
	neg := 0
	for i, d := range p.Values[0] {
		q := p.Result.Chains[0].Draws[i]
		if math.Abs(d[1]-math.Exp(q[1])) > 1e-12*d[1] || d[0] != q[0] {
			t.Fatalf("draw %d: %v from %v", i, d, q)
		}
		if q[1] < 0 {
			neg++
		}
	}
	if neg == 0 { // the test needs log sigma < 0 draws to mean something
		t.Errorf("no draw with log sigma < 0")
	}
}

// The three posteriors pathfinder is checked on, with their reference
// moments: closed forms for the two Gaussians; for the logistic
// regression, NUTS (4 chains × 2000 draws, seed 1; its MCSEs are below
// 0.01).
const correlated = `
model g {
  a ~ normal(1, 1)
  b ~ normal(0.8 * (a - 1), 0.6)
}
`

const logistic = `
let x = [-1.5, -1, -0.6, -0.2, 0.1, 0.4, 0.8, 1.1, 1.5, 2]
let z = [0, 0, 1, 0, 0, 1, 0, 1, 1, 1]
model lr {
  alpha ~ normal(0, 2)
  beta ~ normal(0, 2)
  z ~ bernoulli_logit(alpha + beta * x)
}
`

// TestPathfinderMoments: pathfinder's means within 0.1 posterior sd and
// sds within 10% of the reference on the conjugate normal and the 2-D
// correlated Gaussian (where its Gaussians are exact up to the L-BFGS
// estimate of the covariance, and 1000 resampled draws have a Monte Carlo
// error near 0.05 sd), and within 0.15 sd and 15% on the logistic
// regression (a skewed posterior whose Gaussian approximation PSIS only
// partly corrects, and NUTS's own error).
func TestPathfinderMoments(t *testing.T) {
	in, _ := kmltest.Run(t, conjugate+correlated+logistic+`
let p1 = pathfinder(m, seed: 1)
let p2 = pathfinder(g, seed: 2)
let p3 = pathfinder(lr, seed: 3)
let n3 = sample(lr, chains: 4, warmup: 1000, draws: 2000, seed: 1)
`)
	wm, wsd := conjugateMoments()
	type ref struct {
		post     string
		k        int
		mean, sd float64
		tol      float64
	}
	n3 := kmltest.Lookup[*infer.Posterior](t, in, "n3")
	am, asd := moments(n3, 0)
	bm, bsd := moments(n3, 1)
	refs := []ref{
		{"p1", 0, wm, wsd, 0.1},
		{"p2", 0, 1, 1, 0.1},
		{"p2", 1, 0, 1, 0.1}, // sd √(0.8² + 0.6²)
		{"p3", 0, am, asd, 0.15},
		{"p3", 1, bm, bsd, 0.15},
	}
	for _, r := range refs {
		p := kmltest.Lookup[*infer.Posterior](t, in, r.post)
		m, sd := moments(p, r.k)
		t.Logf("%s[%d]: mean %.4f (ref %.4f), sd %.4f (ref %.4f), k̂ %.2f", r.post, r.k, m, r.mean, sd, r.sd, p.Approx.Khat)
		if math.Abs(m-r.mean) > r.tol*r.sd || math.Abs(sd-r.sd) > r.tol*r.sd {
			t.Errorf("%s, column %d: mean %v sd %v, want %v and %v within %v sd", r.post, r.k, m, sd, r.mean, r.sd, r.tol)
		}
	}
	for _, name := range []string{"p1", "p2"} {
		if k := kmltest.Lookup[*infer.Posterior](t, in, name).Approx.Khat; k > 0.7 {
			t.Errorf("%s: k̂ = %v on a Gaussian posterior", name, k)
		}
	}
}

// TestPathfinderKhatFlagsAFunnel: on Neal's funnel with 19 x's no
// Gaussian fits; k̂ exceeds 0.7 and the summary warns.
func TestPathfinderKhatFlagsAFunnel(t *testing.T) {
	in, _ := kmltest.Run(t, `
model f {
  v ~ normal(0, 3)
  x[19] ~ normal(0, exp(v / 2))
}
let p = pathfinder(f, seed: 5)
let s = summary(p)
`)
	p := kmltest.Lookup[*infer.Posterior](t, in, "p")
	if !(p.Approx.Khat > 0.7) {
		t.Errorf("k̂ = %v on the funnel", p.Approx.Khat)
	}
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s")
	if !strings.Contains(s.String(), "warning: Pareto k̂ = ") || !strings.HasPrefix(s.String(), "pathfinder (paths: 4, draws: 1000") {
		t.Errorf("summary:\n%s", s)
	}
}

// TestApproximatePosteriorsAreUsable: what sample's posterior goes to
// takes theirs: summary (its attributes), draws, save as CSV, plot, and
// predict for a GP; printed, they name the method and the settings.
func TestApproximatePosteriorsAreUsable(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	_, err := in.Eval("t.kml", `
let y = [1.2, 0.4, 2.1, 1.7, 0.9]
model m {
  mu ~ normal(0, 2)
  sigma ~ gamma(2, 2)
  y ~ normal(mu, sigma)
}
let p = pathfinder(m, draws: 200, paths: 2, seed: 1)
let l = laplace_sample(m, draws: 200, seed: 1)
let pm = summary(p).method
let lm = summary(l).method
let lk = summary(l).khat
let n = len(p.sigma)
save(p, to: "p.csv")
save(l, to: "l.json")
plot(l, to: "l.png")
let x = [[0.1], [0.5], [0.9], [1.3], [1.7], [2.1]]
let t = [0.2, 0.7, 0.8, 1.1, 0.9, 0.4]
model gpm {
  ell ~ gamma(2, 2)
  f ~ gp(x, rbf(ell))
  t ~ normal(f, 0.3)
}
let q = laplace_sample(gpm, draws: 20, seed: 2)
let pr = predict(q, [[1.0]])
`)
	if err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		t.Fatal(b.String())
	}
	if pm, lm := kmltest.Lookup[eval.Str](t, in, "pm"), kmltest.Lookup[eval.Str](t, in, "lm"); pm != "pathfinder" || lm != "laplace" {
		t.Errorf("methods %q %q", pm, lm)
	}
	if k := kmltest.Lookup[eval.Num](t, in, "lk"); !(k < 0.7) {
		t.Errorf("laplace k̂ %v", k)
	}
	if n := kmltest.Lookup[eval.Num](t, in, "n"); n != 200 {
		t.Errorf("%v draws of sigma", n)
	}
	if pr := kmltest.Lookup[*eval.Record](t, in, "pr"); kmltest.Field(t, pr, "f_mean") == nil {
		t.Errorf("predict: %v", pr)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "p.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "chain,draw,mu,sigma,lp__") || strings.Count(string(csv), "\n") != 201 {
		t.Errorf("p.csv: %v\n%.200s", err, csv)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "l.json"))
	if !strings.Contains(string(js), `"method": "laplace"`) {
		t.Errorf("l.json: %.300s", js)
	}
	if _, err := os.Stat(filepath.Join(dir, "l.png")); err != nil {
		t.Error(err)
	}
	in2, _ := kmltest.Run(t, conjugate+`let p = laplace_sample(m, draws: 10, seed: 9)`)
	if s := kmltest.Lookup[*infer.Posterior](t, in2, "p").String(); !strings.Contains(s, "by laplace (draws: 10, seed: 9)") {
		t.Errorf("printed: %s", s)
	}
}

func TestApproxArgumentErrors(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{"laplace_sample(m, draws: 0)", "t.kml:7:34: error: laplace_sample: draws must be at least 1"},
		{"laplace_sample(3)", "t.kml:7:24: error: laplace_sample: m must be a model"},
		{"laplace_sample(m, seed: -1)", "t.kml:7:33: error: laplace_sample: seed must not be negative"},
		{"pathfinder(m, paths: 0)", "t.kml:7:30: error: pathfinder: paths must be at least 1"},
		{"pathfinder(m, history: 0)", "t.kml:7:32: error: pathfinder: history must be at least 1"},
		{"pathfinder(m, elbo_draws: 0)", "t.kml:7:35: error: pathfinder: elbo_draws must be at least 1"},
		{"pathfinder(m, single_draws: 0)", "t.kml:7:37: error: pathfinder: single_draws must be at least 1"},
		{"pathfinder(m, max_iters: 0)", "t.kml:7:34: error: pathfinder: max_iters must be at least 1"},
		{"pathfinder(m, draws: 1.5)", "t.kml:7:30: error: pathfinder: draws must be a whole number"},
		{"pathfinder(\"m\")", "t.kml:7:20: error: pathfinder: m must be a model"},
	} {
		kmltest.ExpectError(t, conjugate+"let p = "+c.call+"\n", c.want)
	}
	kmltest.ExpectError(t, `model e {
  x ~ normal(0, 1)
  x ~ normal(0, 1)
}
let p = laplace_sample(e)
`, "error")
	out := kmltest.RunIn(t, t.TempDir(), `model s {
  a ~ normal(0, 1)
}
let p = laplace_sample(s, draws: 3, seed: 1)
save(p, to: "x.csv", format: "cmdstan")
`)
	if !strings.Contains(out, `t.kml:5:1: error: save: format: "cmdstan" writes a sampler's output files; a posterior from laplace is saved as plain CSV`) {
		t.Errorf("save cmdstan: %s", out)
	}
}

// TestApproximationsStopOnInterrupt: a cancelled run stops pathfinder and
// laplace_sample with an interruption, not a result, having done at most a
// second of processor time after the cancel (half a second on each of two
// cores, which a crowded machine does not stretch).
func TestApproximationsStopOnInterrupt(t *testing.T) {
	big := `
let y = draw(normal(0, 1), 2000, seed: 1)
model m {
  mu ~ normal(0, 1)
  s ~ gamma(2, 2)
  y ~ normal(mu, s)
}
`
	for _, call := range []string{"pathfinder(m, draws: 100000, single_draws: 100000, seed: 1)", "laplace_sample(m, draws: 1000000, seed: 1)"} {
		ctx, cancel := context.WithCancel(context.Background())
		in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Context: ctx})
		done := make(chan error)
		go func() {
			_, err := in.Eval("t.kml", big+"let p = "+call+"\n")
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		err, cost, ok := stoptest.Await(cancel, done, 2*time.Minute)
		if !ok {
			t.Fatalf("%s did not stop within 2 minutes", call)
		}
		if err == nil || !strings.Contains(err.Error(), "interrupt") {
			t.Errorf("%s: %v", call, err)
		}
		if cost.CPU > time.Second {
			t.Errorf("%s: stopped %v after the interrupt", call, cost)
		}
		t.Logf("%s: stopped %v after the interrupt", call, cost)
	}
}

// TestApproximationProgress: pathfinder counts its L-BFGS iterations on
// the progress line from the start.
func TestApproximationProgress(t *testing.T) {
	var term bytes.Buffer
	in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Progress: true, ProgressTo: &term})
	in.Progress().Delay = 0
	if _, err := in.Eval("p.kml", conjugate+"let p = pathfinder(m, seed: 1)\nlet l = laplace_sample(m, seed: 1)\n"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pathfinder: L-BFGS iterations (at most) ", "/4000", "laplace_sample: Hessian columns and draws ", "/1001"} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("no %q in %q", want, term.String())
		}
	}
}
