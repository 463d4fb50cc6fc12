package ktest_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// The "bayes" kernel choice through mmd_test, hsic_test, ci_test and pc:
// its draws, settings and diagnostics reach the records, and a test with
// one draw equals the test with that draw's rbf kernel given (to
// rounding: the rbf Gram matrix is computed by a vectorised path).
func TestBayesChoiceBinding(t *testing.T) {
	start := time.Now()
	in, _ := kmltest.Run(t, kmltest.CausalData+`
let m = mmd_test(x, y + 1, "bayes", permutations: 99, seed: 1, draws: 4)
let m1 = mmd_test(x, y + 1, "bayes", permutations: 99, seed: 1, draws: 1)
let g = mmd_test(x, y + 1, rbf(m1.ell), permutations: 99, seed: 1)
let same = abs(m1.statistic - g.statistic) < 1e-12 && m1.pvalue == g.pvalue
let h = hsic_test(x, y, "median", "bayes", permutations: 99, seed: 2, draws: 3)
let c = ci_test(x, y, z, "bayes", "bayes", seed: 4, permutations: 99, draws: 3)
let p = pc(cbind(x, y, z), kernel: "bayes", names: ["x", "y", "z"], seed: 1, draws: 3)
`)
	m := kmltest.Lookup[*eval.Record](t, in, "m")
	for _, want := range []string{`choice: "bayes"`, "landmarks: 32", "tau2: 1", `bayes: {draws: 4, mean: `,
		`prior: "gamma(1, 1)", modes: [{ell: `, `nuts: {chains: 2, warmup: 200, iterations: 100, divergences: `, "inits: ["} {
		if !strings.Contains(m.String(), want) {
			t.Errorf("mmd_test record lacks %q: %s", want, m)
		}
	}
	if ell, _ := m.Attr("ell"); len(ell.(*eval.Vec).Data) != 4 {
		t.Errorf("ell %s", ell)
	}
	if pv, _ := m.Attr("pvalue"); float64(pv.(eval.Num)) > 0.05 {
		t.Errorf("mmd_test with a shift of 1: p = %s", pv)
	}
	if !bool(kmltest.Lookup[eval.Bool](t, in, "same")) {
		t.Error("one draw differs from its rbf kernel given")
	}
	h := kmltest.Lookup[*eval.Record](t, in, "h")
	if s := h.String(); !strings.Contains(s, `choice: {x: "median", y: "bayes"}`) || !strings.Contains(s, "bayes: {y: {draws: 3") {
		t.Errorf("hsic_test record %s", s)
	}
	c := kmltest.Lookup[*eval.Record](t, in, "c")
	if s := c.String(); !strings.Contains(s, "bayes: {x: {draws: 3") || !strings.Contains(s, "y: {draws: 3") {
		t.Errorf("ci_test record %s", s)
	}
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	if k, _ := p.Attr("kernel"); k != eval.Str("bayes") {
		t.Errorf("pc kernel %s", k)
	}
	t.Logf("%.1f s", time.Since(start).Seconds())
}

// TestBayesWarningsPrinted: each diagnostic the "bayes" choice records in
// bayes.warnings is also printed at the call, for mmd_test, hsic_test and
// ci_test alike.
func TestBayesWarningsPrinted(t *testing.T) {
	in, out := kmltest.Run(t, kmltest.CausalData+`
let m = mmd_test(x, y + 1, "bayes", permutations: 19, seed: 1, draws: 4)
let h = hsic_test(x, y, "median", "bayes", permutations: 19, seed: 2, draws: 3)
let c = ci_test(x, y, z, "bayes", "median", seed: 4, permutations: 19, draws: 3)
`)
	printed := out.String()
	total := 0
	for _, c := range []struct {
		name, field, what string
	}{{"m", "", "the pooled sample"}, {"h", "y", "y"}, {"c", "x", "x"}} {
		rec := kmltest.Lookup[*eval.Record](t, in, c.name)
		b, _ := rec.Attr("bayes")
		if c.field != "" {
			b, _ = b.(*eval.Record).Attr(c.field)
		}
		ws, _ := b.(*eval.Record).Attr("warnings")
		for _, w := range ws.(*eval.List).Elems {
			if line := "warning: bayes: the lengthscale draws of " + c.what + ": " + string(w.(eval.Str)); !strings.Contains(printed, line) {
				t.Errorf("%s: %q not printed; printed:\n%s", c.name, line, printed)
			}
		}
		total += len(ws.(*eval.List).Elems)
	}
	// The default run (2 chains of 100 iterations) falls short of summary's
	// ESS threshold on these data, so there is something to print.
	if total == 0 {
		t.Error("no warnings recorded, so none checked")
	}
}
