package dists_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestFlatPrior: flat() adds nothing to the log density, so with normal
// observations of known sd the posterior of the mean is normal(ȳ, 1/√n);
// a fit whose every parameter is flat warns, one with a proper prior does
// not.
func TestFlatPrior(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1.2, 0.4, 2.2, 1.7, 0.9]
model m {
  mu ~ flat()
  y ~ normal(mu, 1)
}
model both {
  mu ~ flat()
  s ~ gamma(2, 2)
  y ~ normal(mu, s)
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 31)
let s = summary(post)
let s2 = summary(sample(both, chains: 1, warmup: 100, draws: 100, seed: 32))
`)
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	p := s.Params[0]
	mean, sd := 6.4/5, 1/math.Sqrt(5)
	if math.Abs(p.Mean-mean) > 4*p.MCSEMean || math.Abs(p.SD-sd) > 4*p.SD/math.Sqrt(2*p.ESSBulk) {
		t.Errorf("mu: mean %v ± %v (want %v), sd %v (want %v)", p.Mean, p.MCSEMean, mean, p.SD, sd)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "posterior may be improper") {
		t.Errorf("no impropriety warning: %v", s.Warnings)
	}
	if w := kmltest.Lookup[*infer.SummaryVal](t, in, "s2").S.Warnings; strings.Contains(strings.Join(w, "\n"), "improper") {
		t.Errorf("a model with a proper prior warned: %v", w)
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"print(draw(flat(), 3))", "1:12: error: draw: flat() is improper: it is a prior"},
		{"print(logpdf(flat(), 1))", "1:14: error: logpdf: flat() is improper"},
		{"print(mean(flat()))", "flat() is improper: it has no mean"},
		{"let y = [1, 2]\nmodel m {\n  a ~ normal(0, 1)\n  y ~ flat()\n}\nprint(logp(m, {a: 0}))", "4:7: error: flat() is an improper prior for parameters, not a distribution for data"},
		{"print(mixture([0.5, 0.5], [flat(), normal(0, 1)]))", "component 1 is improper"},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", c.src, got, c.want)
		}
	}
}

// TestMLWarnsAboutAbsentParameters: an "ml" fit names the parameter the
// likelihood does not depend on, and only that one.
func TestMLWarnsAboutAbsentParameters(t *testing.T) {
	src := `let y = [1.0, 2.0, 1.5]
model m {
  mu ~ normal(0, 10)
  extra ~ normal(0, 1)
  y ~ normal(mu, 1)
}
let f = optimize(m, objective: "ml", seed: 1)
let g = optimize(m, seed: 1)
`
	_, out := kmltest.Run(t, src)
	if got := out.String(); !strings.Contains(got, "7:9: warning: extra does not enter the likelihood") || strings.Count(got, "does not enter") != 1 {
		t.Errorf("warnings:\n%s", got)
	}
}
