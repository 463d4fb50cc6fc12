package fit_test

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestNoWarmupWarns checks that sample(m, warmup: 0) says, at the call and
// in the summary, that nothing was adapted, and that a summary of too few
// draws explains its NaN diagnostics instead of calling them high R-hat.
func TestNoWarmupWarns(t *testing.T) {
	_, out := kmltest.Run(t, "model m { a ~ normal(0, 1) }\nlet p = sample(m, warmup: 0, draws: 200, seed: 1)\nprint(summary(p))\nprint(summary(sample(m, warmup: 10, draws: 2, seed: 1)))\n")
	got := out.String()
	for _, want := range []string{
		"t.kml:2:9: warning: warmup: 0: the step size and the metric are not adapted",
		"warning: warmup: 0: the step size (1) and the metric (the identity) are not adapted",
		"warning: 2 draws per chain are too few to estimate R-hat, ESS and MCSE (shown as NaN)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "R-hat above 1.01") {
		t.Errorf("NaN R-hat of 2 draws reported as high:\n%s", got)
	}
}

// TestOptimizeWarnsAtInfinityAndRidge checks that optimize, though L-BFGS
// converges, warns of a maximum at infinity (separated logistic data), of a
// flat direction (a + b not identified), and of neither for a proper
// optimum.
func TestOptimizeWarnsAtInfinityAndRidge(t *testing.T) {
	_, out := kmltest.Run(t, `let x = [-2, -1, -0.5, 0.5, 1, 2]
let y = [0, 0, 0, 1, 1, 1]
model lg { b ~ normal(0, 1)
  y ~ bernoulli_logit(b * x) }
let o1 = optimize(lg, objective: "ml")
model ab { a ~ normal(0, 1)
  b ~ normal(0, 1)
  y ~ normal(a + b, 1) }
let o2 = optimize(ab, objective: "ml")
let o3 = optimize(ab)
model ok { a ~ normal(0, 1)
  s ~ exponential(1)
  y ~ normal(a, s) }
let o4 = optimize(ok, objective: "ml")
print(o1.converged, o2.converged)
`)
	got := out.String()
	for _, want := range []string{
		"t.kml:5:10: warning: the objective keeps increasing as the values of b grow: its maximum is at infinity",
		"t.kml:9:10: warning: the objective is flat along a direction through the optimum (the Hessian is singular",
		"a and b are not identified",
		"true true\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "warning"); n != 2 {
		t.Errorf("%d warnings, want 2 (none for map or a proper optimum):\n%s", n, got)
	}
}
