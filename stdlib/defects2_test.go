package stdlib_test

import (
	"strings"
	"testing"
)

// TestNoWarmupWarns checks that sample(m, warmup: 0) says, at the call and
// in the summary, that nothing was adapted, and that a summary of too few
// draws explains its NaN diagnostics instead of calling them high R-hat.
func TestNoWarmupWarns(t *testing.T) {
	_, out := run(t, "model m { a ~ normal(0, 1) }\nlet p = sample(m, warmup: 0, draws: 200, seed: 1)\nprint(summary(p))\nprint(summary(sample(m, warmup: 10, draws: 2, seed: 1)))\n")
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
