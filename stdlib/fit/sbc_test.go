package fit_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// sbcModels are a conjugate-ish two-parameter normal model and the same
// model fitted with a prior on mu three times too narrow.
const sbcModels = `
let y = [0.3, -0.2, 1.1, 0.5, 0.1]
model m {
  mu ~ normal(0, 1)
  s ~ lognormal(0, 0.5)
  y ~ normal(mu, s)
}
model narrow {
  mu ~ normal(0, 0.3)
  s ~ lognormal(0, 0.5)
  y ~ normal(mu, s)
}
`

// TestSBCCalibrated: SBC of a correct model gives ranks whose ECDF test
// does not reject: every parameter's p-value is above 0.01 for each of
// three seeds (a threshold a calibrated fit passes with probability
// about 0.99 per parameter and seed; the seeds here give 0.04–0.83). The
// result is what it says: ranks in 0..L with L = chains × ⌈draws/thin⌉,
// thin chosen by the ESS rule.
func TestSBCCalibrated(t *testing.T) {
	for _, seed := range []int{1, 2, 3} {
		in, _ := kmltest.Run(t, sbcModels+fmt.Sprintf("let r = sbc(m, sims: 60, seed: %d, warmup: 150, draws: 200)\n", seed))
		rec := kmltest.Lookup[*eval.Record](t, in, "r")
		res, ok := rec.Of().(*infer.SBC)
		if !ok {
			t.Fatal("sbc's record does not keep its result for plot")
		}
		if !res.ThinAuto || res.Thin < 1 || res.L != res.Settings.Sampler.Chains*((200+res.Thin-1)/res.Thin) {
			t.Errorf("seed %d: thin %d (auto %v), L %d", seed, res.Thin, res.ThinAuto, res.L)
		}
		if n := float64(200) / res.MedianESS; res.Thin != int(math.Ceil(n)) && res.MedianESS < 200 {
			t.Errorf("seed %d: thin %d, want ⌈200 / %.1f⌉", seed, res.Thin, res.MedianESS)
		}
		ranks := kmltest.Field(t, rec, "ranks").(*eval.Mat)
		if r, c := ranks.Dims(); r != 60 || c != 2 {
			t.Fatalf("ranks are %d×%d, want 60×2", r, c)
		}
		for k := range 60 {
			for j := range 2 {
				if x := ranks.M.At(k, j); x < 0 || x > float64(res.L) || x != math.Trunc(x) {
					t.Fatalf("rank %v outside 0..%d", x, res.L)
				}
			}
		}
		pv := kmltest.Field(t, rec, "p_values").(*eval.Record)
		for _, name := range []string{"mu", "s"} {
			if p := kmltest.Num(t, pv, name); p <= 0.01 {
				t.Errorf("seed %d: %s's p-value %.4f ≤ 0.01 for a calibrated fit", seed, name, p)
			}
		}
	}
}

// TestSBCDetectsMiscalibration: fitting a model whose prior on mu is
// three times too narrow (fit: narrow) puts the prior draws in the
// posterior's tails, ranks near 0 and L: mu's p-value is below 0.01 (it
// is the smallest the 2000 null samples give, 1/2001).
func TestSBCDetectsMiscalibration(t *testing.T) {
	in, _ := kmltest.Run(t, sbcModels+"let r = sbc(m, fit: narrow, sims: 60, seed: 1, warmup: 150, draws: 200)\n")
	rec := kmltest.Lookup[*eval.Record](t, in, "r")
	pv := kmltest.Field(t, rec, "p_values").(*eval.Record)
	if p := kmltest.Num(t, pv, "mu"); p >= 0.01 {
		t.Errorf("mu's p-value %.4f ≥ 0.01 for a fit with the wrong prior", p)
	}
	if f := kmltest.Field(t, rec, "fit"); f.String() != "narrow" {
		t.Errorf("fit = %s, want narrow", f)
	}
}

// TestSBCRefusals: a model that cannot be forward-simulated is refused at
// its statement, as prior_predictive refuses it; data SBC cannot replace
// by name, and a fitted model that observes other variables, likewise.
func TestSBCRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"let y = [1, 2]\nmodel m {\n  mu ~ normal(0, 1)\n  target += -mu^2\n  y ~ normal(mu, 1)\n}\nlet r = sbc(m, sims: 10, seed: 1)",
			"t.kml:4:10: error: cannot draw from a model with `target +=`"},
		{"let y = [1, 2]\nmodel m {\n  mu ~ flat()\n  y ~ normal(mu, 1)\n}\nlet r = sbc(m, sims: 10, seed: 1)",
			"t.kml:3:6: error: cannot draw mu from its prior"},
		{"let y = [1, 2, 3]\nmodel m {\n  mu ~ normal(0, 1)\n  y[1:2] ~ normal(mu, 1)\n}\nlet r = sbc(m, sims: 10, seed: 1)",
			"t.kml:4:3: error: sbc gives the fitted model the simulated data by name"},
		{"let y = [1, 2]\nlet z = [1, 2]\nmodel m {\n  mu ~ normal(0, 1)\n  y ~ normal(mu, 1)\n}\nmodel w {\n  mu ~ normal(0, 1)\n  z ~ normal(mu, 1)\n}\nlet r = sbc(m, fit: w, sims: 10, seed: 1)",
			"t.kml:11:9: error: sbc: the fitted model w observes z, but m simulates y"},
		{"let y = [1, 2]\nmodel m {\n  mu ~ normal(0, 1)\n  y ~ normal(mu, 1)\n}\nlet r = sbc(m, sims: 10, seed: 1, thin: 0.5)",
			"t.kml:6:41: error: sbc: thin must be a whole number"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// TestSBCStopsAndReports: sbc counts its simulations on the progress
// line from the start, and a cancelled run stops with an interruption,
// not a result, having done at most a second of processor time after the
// cancel.
func TestSBCStopsAndReports(t *testing.T) {
	var term bytes.Buffer
	in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Progress: true, ProgressTo: &term})
	in.Progress().Delay = 0
	if _, err := in.Eval("p.kml", sbcModels+"let r = sbc(m, sims: 4, seed: 1, warmup: 50, draws: 50)\n"); err != nil {
		t.Fatal(err)
	}
	if want := "sbc: simulations "; !strings.Contains(term.String(), want) || !strings.Contains(term.String(), "/4") {
		t.Errorf("no %q …/4 in %q", want, term.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	in = eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Context: ctx})
	done := make(chan error)
	go func() {
		_, err := in.Eval("t.kml", sbcModels+"let r = sbc(m, sims: 100000, seed: 1, warmup: 1000, draws: 1000)\n")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	err, cost, ok := stoptest.Await(cancel, done, 2*time.Minute)
	if !ok {
		t.Fatal("sbc did not stop within 2 minutes")
	}
	if err == nil || !strings.Contains(err.Error(), "interrupt") {
		t.Errorf("sbc: %v", err)
	}
	if cost.CPU > time.Second {
		t.Errorf("sbc stopped %v after the interrupt", cost)
	}
}

// TestSBCModelWithDataArguments: a model declared with data arguments is
// refitted by calling it with the simulated data; a regression whose x
// stays and whose y is simulated is calibrated (p > 0.01).
func TestSBCModelWithDataArguments(t *testing.T) {
	in, _ := kmltest.Run(t, `
model reg(x, y) {
  a ~ normal(0, 1)
  b ~ normal(0, 1)
  y ~ normal(a + b * x, 0.5)
}
let r = sbc(reg(x: [0, 1, 2, 3], y: [0.1, 0.9, 2.2, 2.8]), sims: 60, seed: 1, warmup: 150, draws: 200)
`)
	pv := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "r"), "p_values").(*eval.Record)
	for _, name := range []string{"a", "b"} {
		if p := kmltest.Num(t, pv, name); p <= 0.01 {
			t.Errorf("%s's p-value %.4f ≤ 0.01 for a calibrated fit", name, p)
		}
	}
}

// BenchmarkSBCEightSchools: SBC of the non-centred eight schools model,
// 200 simulations at sbc's default sampler settings, in parallel over the
// simulations (the check that it runs both cores).
func BenchmarkSBCEightSchools(b *testing.B) {
	src := `
let y = [28, 8, -3, 7, -1, 1, 18, 12]
let sigma = [15, 10, 16, 11, 9, 11, 10, 18]
model schools {
  mu ~ normal(0, 5)
  tau ~ half_normal(5)
  eta[8] ~ normal(0, 1)
  theta = mu + tau * eta
  y ~ normal(theta, sigma)
}
`
	for range b.N {
		kmltest.Run(b, src+"let r = sbc(schools, sims: 200, seed: 1)\n")
	}
}

// gpSBCModels are GP regression on twelve inputs with two
// hyperparameters, and the same model fitted with a prior on the noise
// sd s centred at e^{−0.5} = 0.61 with sd 0.1 on the log scale instead of
// e^{−1} = 0.37 with sd 0.3.
const gpSBCModels = `
let X = [[0.0], [0.3], [0.6], [0.9], [1.2], [1.5], [1.8], [2.1], [2.4], [2.7], [3.0], [3.3]]
let y = [0.1, 0.4, 0.8, 0.9, 0.7, 0.2, 0.0, -0.3, -0.5, -0.2, 0.1, 0.3]
model m {
  ell ~ lognormal(0, 0.5)
  s ~ lognormal(-1, 0.3)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, s)
}
model wrong {
  ell ~ lognormal(0, 0.5)
  s ~ lognormal(-0.5, 0.1)
  f ~ gp(X, rbf(ell))
  y ~ normal(f, s)
}
`

// TestSBCGPRegression: SBC of a GP regression draws f at the inputs from
// N(0, K_θ), y given f, and refits the hyperparameters by NUTS under the
// exact marginal likelihood. The calibrated fit is not rejected (each
// p-value above 0.01, as TestSBCCalibrated's rule; 40 simulations); the
// fit with the wrong prior on s is (s's p-value below 0.01: the prior
// draws s ≈ 0.37 sit in the tail of posteriors held near 0.61).
func TestSBCGPRegression(t *testing.T) {
	in, _ := kmltest.Run(t, gpSBCModels+`
let r = sbc(m, sims: 40, seed: 1, warmup: 150, draws: 200)
let w = sbc(m, fit: wrong, sims: 40, seed: 1, warmup: 150, draws: 200)
`)
	pv := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "r"), "p_values").(*eval.Record)
	for _, name := range []string{"ell", "s"} {
		if p := kmltest.Num(t, pv, name); p <= 0.01 {
			t.Errorf("%s's p-value %.4f ≤ 0.01 for a calibrated GP fit", name, p)
		}
	}
	wp := kmltest.Field(t, kmltest.Lookup[*eval.Record](t, in, "w"), "p_values").(*eval.Record)
	if p := kmltest.Num(t, wp, "s"); p >= 0.01 {
		t.Errorf("s's p-value %.4f ≥ 0.01 for a fit with the wrong prior", p)
	}
	t.Logf("calibrated: ell %.3f, s %.3f; wrong prior: s %.4f", kmltest.Num(t, pv, "ell"), kmltest.Num(t, pv, "s"), kmltest.Num(t, wp, "s"))
}

// TestSBCSamplerSettings: sbc reads the NUTS settings with the reader
// sample and kfold use (infer.SamplerArgs): the same names, limits and
// messages (compared here with sample's for the same bad value), and
// metric, max_depth reported in the result.
func TestSBCSamplerSettings(t *testing.T) {
	const m = "let y = [1, 2]\nmodel m {\n  mu ~ normal(0, 1)\n  y ~ normal(mu, 1)\n}\n"
	for _, bad := range []string{"chains: 0", "warmup: -1", "draws: 0", "max_depth: 31", "adapt_delta: 1", `metric: "full"`, "chains: 1000, draws: 10000000"} {
		msg := func(call string) string {
			var out bytes.Buffer
			in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
			_, err := in.Eval("t.kml", m+call)
			if err == nil {
				t.Fatalf("%s: no error", call)
			}
			s := err.Error()
			return s[strings.Index(s, "error:"):]
		}
		got, want := msg("let r = sbc(m, sims: 10, seed: 1, "+bad+")"), msg("let r = sample(m, seed: 1, "+bad+")")
		if strings.Replace(got, "sbc", "sample", 1) != want {
			t.Errorf("%s: sbc says %q, sample %q", bad, got, want)
		}
	}
	in, _ := kmltest.Run(t, m+`let r = sbc(m, sims: 10, seed: 1, warmup: 100, draws: 100, metric: "dense", max_depth: 6)`)
	rec := kmltest.Lookup[*eval.Record](t, in, "r")
	if s := kmltest.Field(t, rec, "metric"); s != eval.Str("dense") {
		t.Errorf("metric %v, want dense", s)
	}
	if d := kmltest.Num(t, rec, "max_depth"); d != 6 {
		t.Errorf("max_depth %v, want 6", d)
	}
	if res := rec.Of().(*infer.SBC); res.Settings.Sampler.MaxDepth != 6 || infer.MetricName(res.Settings.Sampler.Metric) != "dense" {
		t.Errorf("settings %+v", res.Settings.Sampler)
	}
}
