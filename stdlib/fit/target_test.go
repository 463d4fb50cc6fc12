package fit_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestTargetPlusEquals: `target +=` adds its value to the log density — a
// model whose likelihood is written with target += has the log density,
// loglik and gradient of the same model written with `~`.
func TestTargetPlusEquals(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.3, -1.2, 2.5, 0.9]
model a {
  mu ~ normal(0, 1)
  s ~ gamma(2, 2)
  y ~ normal(mu, s)
}
model b {
  mu ~ normal(0, 1)
  s ~ gamma(2, 2)
  target += logpdf(normal(mu, s), y)
}
model c {
  mu ~ normal(0, 1)
  s ~ gamma(2, 2)
  target += -0.5 * sum(((y - mu) / s) ^ 2) - 4 * log(s) - 2 * log(2 * pi())
}
let la = logp(a, {mu: 0.4, s: 1.3})
let lb = logp(b, {mu: 0.4, s: 1.3})
let lc = logp(c, {mu: 0.4, s: 1.3})
let ka = loglik(a, {mu: 0.4, s: 1.3})
let kb = loglik(b, {mu: 0.4, s: 1.3})
`)
	la := float64(kmltest.Lookup[eval.Num](t, in, "la"))
	for _, name := range []string{"lb", "lc"} {
		if got := float64(kmltest.Lookup[eval.Num](t, in, name)); math.Abs(got-la) > 1e-12 {
			t.Errorf("%s = %v, the same model with ~ gives %v", name, got, la)
		}
	}
	if ka, kb := float64(kmltest.Lookup[eval.Num](t, in, "ka")), float64(kmltest.Lookup[eval.Num](t, in, "kb")); math.Abs(ka-kb) > 1e-12 {
		t.Errorf("loglik with target += %v, with ~ %v", kb, ka)
	}
	kmltest.CheckModelGradient(t, in, "b", 1e-6, []float64{0.4, 0.2}, []float64{-1, -0.5})
	kmltest.CheckModelGradient(t, in, "c", 1e-6, []float64{0.4, 0.2})
}

func TestTargetErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"target += 1", "1:8: error: `target += EXPR` belongs inside a model"},
		{"let x = 1\nmodel m {\n  a ~ normal(0, 1)\n  x += a\n}", "4:5: error: only `target += EXPR` adds to something"},
		{"model m {\n  a ~ normal(0, 1)\n  target += \"s\"\n}\nprint(logp(m, {a: 0}))", "3:13: error: target += needs a number or a vector"},
		{"model m {\n  a ~ normal(0, 1)\n  target += b\n}", "3:13: error: undefined: b"},
	} {
		got := kmltest.RunIn(t, t.TempDir(), c.src)
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", c.src, got, c.want)
		}
	}
}
