package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestProgressLines: with Options.Progress and a buffer standing for the
// terminal, each long builtin draws "NAME: what i/N" lines and erases
// them; without Progress (not a terminal, or --json) nothing is drawn.
func TestProgressLines(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string
	}{
		{"tests", `let x = draw(normal(0, 1), 60, seed: 1)
let y = draw(normal(0.5, 1), 60, seed: 2)
let r = mmd_test(x, y, rbf(1), permutations: 2000)
fn k(l) = rbf(l)
let t = tune(x, 20, kernel: k, ell: logspace(-1, 0.5, 30), method: "kde", score: "logpdf", window: [-4, 4], seed: 4)
let z = draw(normal(0, 1), 60, seed: 3)
let c = ci_test(x + z, y + z, z, "median", "median", permutations: 300, seed: 4)
`, []string{"mmd_test: permutations ", "/2000 (", "tune: candidates ", "/30 (", " left", "ci_test: permutations ", "/300 ("}},
		{"abc", `fn sim(x) = 2 * x + draw(normal(0, 0.5), len(x))
let ab = abc(normal(0, 1), sim, [1], tolerance: 0.05, n: 20, batch: 100, seed: 2)
`, []string{"abc: simulations 100 "}},
		{"filter", `fn step(s, t) = concat(0.9 * s[1:2] + draw(normal(0, 0.3), 2), 0.9 * s[1:2] + draw(normal(0, 0.5), 2))
let seq = iterate(step, [1, 0, 1, 0], 60)
let f = kbr_filter(seq[1:50, 1:2], seq[1:50, 3:4], kx: rbf(0.5), ky: rbf(0.7), eps: 0.01, delta: 0.001)
let est = run(f, seq[51:60, 3:4], estimate: "preimage")
`, []string{"iterate: steps ", "/60 (", "run: steps ", "/10 (", "run: pre-images "}},
		{"fit", `let y = [1, 2, 2, 3, 3, 3]
model m {
  mu ~ normal(0, 5)
  s ~ gamma(2, 2)
  y ~ normal(mu, s)
}
model m1 {
  mu ~ normal(0, 5)
  y ~ normal(mu, 1)
}
let p = profile(m, s: [0.5, 1, 2])
let p1 = profile(m1, mu: linspace(-1, 1, 5))
let o = optimize(m, starts: 4, seed: 1)
let o1 = optimize(m, seed: 1)
`, []string{"profile: points ", "/3 (", "/5 (", "optimize: starts ", "/4 (", "L-BFGS iterations, best log density ", "optimize: L-BFGS iteration ", ", log density ", ", gradient norm "}},
		{"svgp", `let x = draw(normal(0, 1), 200, seed: 1)
let X = cbind(x, x * x)
let y = x > 0
model m {
  ell ~ lognormal(0, 1)
  f ~ gp(X, rbf(ell), inducing: 16)
  y ~ bernoulli_logit(f)
}
let o = optimize(m, objective: "ml", method: "svgp", batch: 50, steps: 50, seed: 1)
`, []string{"optimize: steps ", "/50 ("}},
		{"bke", kmltest.BKEData + `model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let post = sample(m, chains: 1, warmup: 50, draws: 20, seed: 5)
let grid = linspace(-3, 3, 7)
let e = embedding(post, p, at: grid, draws: 10, seed: 1)
let w = witness(post, p, post, q, at: grid, draws: 10, seed: 1)
`, []string{"sample: warm-up  [", "warm-up 1/50, draws 0/20", "it/s", "embedding: draws ", "witness: draws ", "/10 ("}},
	}
	for _, c := range cases {
		for _, on := range []bool{true, false} {
			var term, stderr bytes.Buffer
			in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &stderr, Progress: on, ProgressTo: &term})
			if r := in.Progress(); r != nil {
				r.Delay = 0
			}
			if _, err := in.Eval("p.kml", c.src); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := term.String()
			if !on {
				if got != "" || strings.Contains(stderr.String(), "\r") {
					t.Errorf("%s: progress drawn without Progress: %q %q", c.name, got, stderr.String())
				}
				continue
			}
			for _, want := range c.want {
				if !strings.Contains(got, want) {
					t.Errorf("%s: no %q in the progress output %q", c.name, want, got)
				}
			}
			if !strings.HasSuffix(got, "\r\033[K") {
				t.Errorf("%s: the last line is not erased: %q", c.name, got)
			}
			if n := strings.Count(got, "\r\033[K"); n > 400 {
				t.Errorf("%s: %d redraws for short computations: not throttled", c.name, n)
			}
		}
	}
}
