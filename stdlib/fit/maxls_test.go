package fit_test

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestOptimizeMaxls checks optimize's line-search cap: the record holds
// maxls (30 by default) and the evaluations; a cap of 1 from a far start
// ends the fit unconverged with the cap as its reason; maxls: 0 is refused.
func TestOptimizeMaxls(t *testing.T) {
	_, out := kmltest.Run(t, `let y = [0.3, -1.2, 2.5, 0.7, 1.9]
model ok { a ~ normal(0, 1)
  s ~ exponential(1)
  y ~ normal(a, s) }
let o = optimize(ok, objective: "ml")
print(o.converged, o.maxls, o.evaluations >= o.iterations, o.evaluations > 0)
let c = optimize(ok, objective: "ml", maxls: 1, init: {a: 40, s: 0.05})
print(c.converged, c.maxls)
`)
	got := out.String()
	for _, want := range []string{
		"true 30 true true\n",
		"false 1\n",
		"t.kml:7:9: warning: optimize did not converge (Failure: a line search used all its evaluations (maxls = 1))",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	kmltest.ExpectError(t, "model m { a ~ normal(0, 1) }\noptimize(m, maxls: 0)\n",
		"t.kml:2:20: error: optimize: maxls must be at least 1, got 0")
}
