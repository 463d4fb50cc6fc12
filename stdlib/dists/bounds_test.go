package dists_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestDependentBounds: with a ~ uniform(0, 1) and b ~ uniform(0, 1 - a) the
// joint density is 1/(1 − a) on the triangle a, b > 0, a + b < 1, so
// E[b] = E[(1 − a)/2] = 1/4 and var(b) = E[(1 − a)²/3] − 1/16 = 7/144.
// The gradient of the log density with moving bounds (a vector parameter
// too, with both ends moving) matches finite differences, and every draw
// respects its bounds.
func TestDependentBounds(t *testing.T) {
	in, _ := kmltest.Run(t, `
model m {
  a ~ uniform(0, 1)
  b ~ uniform(0, 1 - a)
}
model g {
  a ~ uniform(0, 1)
  lim = 2 - a
  v[2] ~ uniform(-a, lim)
  [0.3, 0.1] ~ normal(v, 1)
}
let post = sample(m, chains: 4, warmup: 500, draws: 1000, seed: 41)
let s = summary(post)
let a = post.a
let b = post.b
let gp = sample(g, chains: 1, warmup: 100, draws: 100, seed: 42)
let ga = gp.a
let gv = gp.v
`)
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.3, -0.8}, []float64{-1.2, 2})
	kmltest.CheckModelGradient(t, in, "g", 1e-6, []float64{0.3, -0.8, 0.5}, []float64{-1.2, 2, -0.4})
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	pb := s.Params[1]
	if pb.Name != "b" {
		t.Fatalf("second row is %s", pb.Name)
	}
	if math.Abs(pb.Mean-0.25) > 4*pb.MCSEMean {
		t.Errorf("E[b] = %v ± %v, want 1/4", pb.Mean, pb.MCSEMean)
	}
	if want := math.Sqrt(1.0/9 - 1.0/16); math.Abs(pb.SD-want) > 4*pb.SD/math.Sqrt(2*pb.ESSBulk) {
		t.Errorf("sd(b) = %v, want %v", pb.SD, want)
	}
	a := kmltest.Lookup[*eval.Vec](t, in, "a").Data
	b := kmltest.Lookup[*eval.Vec](t, in, "b").Data
	for i := range a {
		if !(b[i] > 0 && a[i]+b[i] < 1) {
			t.Fatalf("draw %d: a = %v, b = %v outside the triangle", i, a[i], b[i])
		}
	}
	ga := kmltest.Lookup[*eval.Vec](t, in, "ga").Data
	gv := kmltest.Lookup[*eval.Mat](t, in, "gv")
	for i := range ga {
		for j := 0; j < 2; j++ {
			if v := gv.M.At(i, j); !(v > -ga[i] && v < 2-ga[i]) {
				t.Fatalf("draw %d: v.%d = %v outside (%v, %v)", i, j+1, v, -ga[i], 2-ga[i])
			}
		}
	}
	for _, c := range []struct{ src, want string }{
		{"model m {\n  a ~ uniform(0, 1)\n  b ~ uniform(0, 1 - a)\n}\nprint(sample(m, init: {b: 0.2}, draws: 10))", "the bounds of b depend on other parameters"},
		{"model m {\n  a ~ gamma(2, 2)\n  b ~ normal(a, 1)\n  c ~ gamma(a, 1)\n}\nprint(logp(m, {a: 1, b: 0, c: 1}))", ""},
		{"model m {\n  a ~ normal(0, 1)\n  b ~ uniform(a, a - 1)\n}\nprint(sample(m, draws: 10))", "3:7: error: uniform: lo must be less than hi"},
	} {
		got := kmltest.RunIn(t, t.TempDir(), c.src)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %q", c.src, got, c.want)
		}
	}
}
