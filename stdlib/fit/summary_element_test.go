package fit_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestSummaryElement: summary(post).a[k] is the record of the vector
// parameter a's k-th element (1-based), the row "a.k" of the table, for a
// NUTS posterior and an approximate one alike; past the end is an error at
// the index.
func TestSummaryElement(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [0.5, 1.5, 2.5]
model m {
  a[3] ~ normal(0, 3)
  y ~ normal(a, 1)
}
let p = sample(m, chains: 1, warmup: 200, draws: 100, seed: 1)
let s = summary(p)
let e2 = s.a[2]
let m3 = summary(laplace_sample(m, draws: 50, seed: 1)).a[3].mean
let n = len(s.a)
`)
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s")
	e2 := kmltest.Lookup[*eval.Record](t, in, "e2")
	if got := kmltest.Num(t, e2, "mean"); got != s.S.Params[1].Mean || s.S.Params[1].Name != "a.2" {
		t.Errorf("s.a[2].mean = %v, want the row %s's %v", got, s.S.Params[1].Name, s.S.Params[1].Mean)
	}
	if got := kmltest.Num(t, e2, "ess_bulk"); got != s.S.Params[1].ESSBulk {
		t.Errorf("s.a[2].ess_bulk = %v, want %v", got, s.S.Params[1].ESSBulk)
	}
	if n := kmltest.Lookup[eval.Num](t, in, "n"); n != 3 {
		t.Errorf("len(s.a) = %v", n)
	}
	// The posterior of a[3] is normal(2.5·9/10, √(9/10)): the draws' mean
	// is near 2.25.
	if m3 := float64(kmltest.Lookup[eval.Num](t, in, "m3")); m3 < 1.8 || m3 > 2.7 {
		t.Errorf("laplace a[3] mean %v, want near 2.25", m3)
	}
	kmltest.ExpectError(t, `
let y = [0.5, 1.5]
model m {
  a[2] ~ normal(0, 3)
  y ~ normal(a, 1)
}
let e = summary(laplace_sample(m, draws: 10, seed: 1)).a[3]
`, "error: index 3 is out of range for list (indices run from 1 to 2)")
}
