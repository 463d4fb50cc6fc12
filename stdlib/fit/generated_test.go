package fit_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestGeneratedBlock: a generated block runs once per draw on the draw's
// values, with the draw's own random stream: posterior predictive draws
// y_rep have mean mu and variance sigma² + var(mu) in expectation, the same
// seed gives the same draws, and the block's results are recorded like
// derived quantities.
func TestGeneratedBlock(t *testing.T) {
	src := `
let y = [1.2, 0.4, 2.2, 1.7, 0.9, 1.4]
model m {
  mu ~ normal(0, 10)
  sigma ~ half_normal(2)
  y ~ normal(mu, sigma)
  generated {
    y_rep = draw(normal(mu, sigma), 3)
    z = mu * 2
  }
}
let post = sample(m, chains: 2, warmup: 300, draws: 500, seed: 71)
let rep = post.y_rep
let mu = post.mu
let sig = post.sigma
let z = post.z
let s = summary(post)
`
	in, _ := kmltest.Run(t, src)
	in2, _ := kmltest.Run(t, src)
	rep := kmltest.Lookup[*eval.Mat](t, in, "rep").M
	rep2 := kmltest.Lookup[*eval.Mat](t, in2, "rep").M
	mu := kmltest.Lookup[*eval.Vec](t, in, "mu").Data
	sig := kmltest.Lookup[*eval.Vec](t, in, "sig").Data
	z := kmltest.Lookup[*eval.Vec](t, in, "z").Data
	r, c := rep.Dims()
	if r != 1000 || c != 3 {
		t.Fatalf("y_rep draws are %d×%d", r, c)
	}
	// Standardised residuals (y_rep − mu)/sigma are standard normal.
	var s1, s2 float64
	for i := 0; i < r; i++ {
		if z[i] != 2*mu[i] {
			t.Fatalf("draw %d: z = %v, 2·mu = %v", i, z[i], 2*mu[i])
		}
		for j := 0; j < c; j++ {
			if rep.At(i, j) != rep2.At(i, j) {
				t.Fatalf("the same seed gave different y_rep at %d, %d", i, j)
			}
			e := (rep.At(i, j) - mu[i]) / sig[i]
			s1 += e
			s2 += e * e
		}
	}
	n := float64(r * c)
	if m := s1 / n; math.Abs(m) > 4/math.Sqrt(n) {
		t.Errorf("mean standardised residual %v", m)
	}
	if v := s2/n - (s1/n)*(s1/n); math.Abs(v-1) > 4*math.Sqrt(2/n) {
		t.Errorf("variance of standardised residuals %v", v)
	}
	names := []string{}
	for _, p := range kmltest.Lookup[*infer.SummaryVal](t, in, "s").S.Params {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "mu sigma y_rep.1 y_rep.2 y_rep.3 z" {
		t.Errorf("summary rows: %s", got)
	}
	for _, c := range []struct{ src, want string }{
		{"generated {\n  a = 1\n}", "1:1: error: a `generated { ... }` block belongs inside a model"},
		{"model m {\n  a ~ normal(0, 1)\n  generated {\n    b = a\n  }\n  c = a\n}", "3:3: error: the `generated { ... }` block must be the last statement of the model"},
		{"model m {\n  a ~ normal(0, 1)\n  generated {\n    b ~ normal(0, 1)\n  }\n}", "a `generated` block holds only `NAME = EXPR` statements"},
	} {
		if got := kmltest.RunIn(t, t.TempDir(), c.src); !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %s\nwant %s", c.src, got, c.want)
		}
	}
}
