package dists_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestOrdered: mu[3] ~ ordered(normal(0, 1)) is the order statistics of
// three standard normals: E[max] = 3/(2√π), E[min] = −E[max], E[median] = 0.
// Every draw is increasing, and the gradient matches finite differences.
func TestOrdered(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  mu[3] ~ ordered(normal(0, 1))
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 51)
let s = summary(post)
let mu = post.mu
let lp = logp(m, {mu: [-1, 0.5, 2]})
let bad = logp(m, {mu: [-1, 2, 0.5]})
`)
	if bad := float64(kmltest.Lookup[eval.Num](t, in, "bad")); !math.IsInf(bad, -1) {
		t.Errorf("logp at an unordered value = %v, want -Inf", bad)
	}
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.3, -0.8, 0.5})
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	emax := 3 / (2 * math.Sqrt(math.Pi))
	for k, want := range []float64{-emax, 0, emax} {
		p := s.Params[k]
		if math.Abs(p.Mean-want) > 4*p.MCSEMean {
			t.Errorf("%s: mean %v ± %v, want %v", p.Name, p.Mean, p.MCSEMean, want)
		}
	}
	mu := kmltest.Lookup[*eval.Mat](t, in, "mu")
	r, _ := mu.Dims()
	for i := 0; i < r; i++ {
		if !(mu.M.At(i, 0) < mu.M.At(i, 1) && mu.M.At(i, 1) < mu.M.At(i, 2)) {
			t.Fatalf("draw %d is not increasing: %v", i, mu.M.RawRowView(i))
		}
	}
	want := -3*0.5*math.Log(2*math.Pi) - 0.5*(1+0.25+4)
	if lp := float64(kmltest.Lookup[eval.Num](t, in, "lp")); math.Abs(lp-want) > 1e-12 {
		t.Errorf("logp = %v, want %v", lp, want)
	}
	for _, c := range []struct{ src, want string }{
		{"model m {\n  a ~ ordered(normal(0, 1))\n}\nprint(logp(m, {a: 0}))", "ordered(...) is the prior of a vector parameter"},
		{"model m {\n  a[2] ~ ordered(gamma(2, 2))\n}\nprint(logp(m, {a: [1, 2]}))", "needs a distribution on the whole real line"},
		{"model m {\n  a[2] ~ ordered(normal(0, 1))\n}\nprint(sample(m, init: {a: [1, 0]}, draws: 5))", "a is ordered, but element 2 (0) is not above element 1 (1)"},
	} {
		if got := kmltest.RunIn(t, t.TempDir(), c.src); !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %q", c.src, got, c.want)
		}
	}
}
