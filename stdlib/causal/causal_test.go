package causal_test

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// ci_test with z empty is hsic_test (same kernels, seed and p-value); with
// z it records the regressions and the residuals' kernels.
func TestCITestBinding(t *testing.T) {
	in, _ := kmltest.Run(t, kmltest.CausalData+`
let a = ci_test(x, y, [], "median", "median", seed: 4, permutations: 200)
let b = hsic_test(x, y, "median", "median", seed: 4, permutations: 200)
let c = ci_test(x, y, z, "bkl", "bkl", seed: 4, permutations: 200)
let ok = a.pvalue == b.pvalue && a.statistic == b.statistic && a.kernel_x == b.kernel_x
`)
	if ok := kmltest.Lookup[eval.Bool](t, in, "ok"); !bool(ok) {
		t.Error("ci_test with z = [] differs from hsic_test")
	}
	c := kmltest.Lookup[*eval.Record](t, in, "c")
	reg, _ := c.Attr("regression")
	s := reg.String()
	if !strings.Contains(s, "rbf(") || !strings.Contains(s, "noise") {
		t.Errorf("the regression is not recorded: %s", s)
	}
	if ch, _ := c.Attr("choice"); !strings.Contains(ch.String(), "bkl") {
		t.Errorf("choice %s", ch)
	}
}

// ci_test with regression "bayes" records the draws, the prior and each
// regression's importance-sampling summary; the same seed repeats the
// result and another seed draws other hyperparameters.
func TestCITestRegressionBayes(t *testing.T) {
	in, _ := kmltest.Run(t, kmltest.CausalData+`
let b = ci_test(x, y, z, "median", "median", method: "gamma", seed: 4, regression: "bayes", regression_draws: 16)
let c = ci_test(x, y, z, "median", "median", method: "gamma", seed: 4, regression: "bayes", regression_draws: 16)
let d = ci_test(x, y, z, "median", "median", method: "gamma", seed: 5, regression: "bayes", regression_draws: 16)
let m = ci_test(x, y, z, "median", "median", method: "gamma", seed: 4)
let same = b.pvalue == c.pvalue
let other = b.regression.x[1].ess != d.regression.x[1].ess
let draws = b.regression.draws
let ess = b.regression.y[1].ess
let ellmean = b.regression.x[1].ell_mean
`)
	if !bool(kmltest.Lookup[eval.Bool](t, in, "same")) {
		t.Error("the same seed gave another p-value")
	}
	if !bool(kmltest.Lookup[eval.Bool](t, in, "other")) {
		t.Error("another seed drew the same hyperparameters")
	}
	if d := kmltest.Lookup[eval.Num](t, in, "draws"); d != 16 {
		t.Errorf("draws %v", d)
	}
	if e := kmltest.Lookup[eval.Num](t, in, "ess"); !(e >= 1 && e <= 16) {
		t.Errorf("ess %v", e)
	}
	if v := kmltest.Lookup[*eval.Vec](t, in, "ellmean"); len(v.Data) != 1 || !(v.Data[0] > 0) {
		t.Errorf("ell_mean %v", v)
	}
	b := kmltest.Lookup[*eval.Record](t, in, "b")
	reg, _ := b.Attr("regression")
	if s := reg.String(); !strings.HasPrefix(s, `{method: "gp bayes:`) || !strings.Contains(s, "prior: ") || !strings.Contains(s, "max_weight") || !strings.Contains(s, "modes: ") {
		t.Errorf("the bayes regression's record: %s", s)
	}
	m := kmltest.Lookup[*eval.Record](t, in, "m")
	reg, _ = m.Attr("regression")
	if s := reg.String(); !strings.HasPrefix(s, `{method: "gp ML-II:`) || strings.Contains(s, "ess") {
		t.Errorf("the ML-II regression's record: %s", s)
	}
}

// pc with Fisher's z on a linear collider x → z ← y orients both edges and
// records the separating set of x and y (empty) with its p-value.
func TestPCBinding(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 200, seed: 1)
let y = draw(normal(0, 1), 200, seed: 2)
let z = x + y + draw(normal(0, 1), 200, seed: 3)
let g = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], alpha: 0.01)
let k = pc(cbind(x, y, z), kernel: "median", names: ["x", "y", "z"], alpha: 0.01, seed: 1)
let w = prewhiten(cbind(x, y), order: 1)
`)
	for _, name := range []string{"g", "k"} {
		g := kmltest.Lookup[*eval.Record](t, in, name)
		text, _ := g.Attr("text")
		if string(text.(eval.Str)) != "x → z\ny → z" {
			t.Errorf("%s: graph %q", name, text)
		}
		rem, _ := g.Attr("removed")
		if s := rem.String(); !strings.HasPrefix(s, `[{x: "x", y: "y", sepset: [], pvalue: `) {
			t.Errorf("%s: removed %s", name, s)
		}
		dot, _ := g.Attr("dot")
		if !strings.Contains(dot.String(), `"x" -> "z";`) {
			t.Errorf("%s: dot %s", name, dot)
		}
	}
	w := kmltest.Lookup[*eval.Record](t, in, "w")
	xm, _ := w.Attr("x")
	if r, c := xm.(*eval.Mat).M.Dims(); r != 199 || c != 2 {
		t.Errorf("prewhiten: %d×%d", r, c)
	}
}

func TestCausalErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`ci_test([1, 2, 3], [1, 2], [], "median", "median")`, "ci_test: x has 3 rows but y has 2"},
		{kmltest.CausalData + `ci_test(x, y, z[1:10], "median", "median")`, "x has 80 rows but z has 10"},
		{kmltest.CausalData + `ci_test(x, y, z, "wide", "median")`, `kx must be a kernel, "median", "bkl", "bayes" or "aggregate", got string`},
		{kmltest.CausalData + `ci_test(x, y, z, "aggregate", "median")`, `needs kx and ky both "aggregate"`},
		{kmltest.CausalData + `ci_test(x, y, z, "median", "median", method: "exact")`, `method must be "permutation" or "gamma"`},
		{kmltest.CausalData + `ci_test(x, y, z, "median", "median", regression: "nuts")`, `regression must be "ml2" or "bayes", got "nuts"`},
		{kmltest.CausalData + `ci_test(x, y, z, "median", "median", method: "kci", regression: "bayes")`, `kci has no GP regression step`},
		{kmltest.CausalData + `ci_test(x, y, z, "median", "median", regression: "bayes", regression_draws: 0)`, `regression_draws`},
		{kmltest.CausalData + `ci_test(x, y, z, "median", "median", regression_draws: 10)`, `regression_draws sets regression: "bayes"`},
		{`ci_test([1, 2, 0/0, 4, 5, 6, 7, 8, 9, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [], "median", "median")`, "x has NaN in row 3"},
		{kmltest.CausalData + `pc(cbind(x, y), test: "spearman")`, `test must be "kernel" or "fisher_z"`},
		{kmltest.CausalData + `pc(cbind(x, y), alpha: 2)`, "alpha must be between 0 and 1"},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a"])`, "1 names for 2 columns"},
		{`pc([1, 2, 3])`, "pc needs at least 2 columns"},
		{`fci([1, 2, 3])`, "fci needs at least 2 columns"},
		{kmltest.CausalData + `pc(cbind(x, y), resamples: 3, fraction: 1.5)`, "fraction must be in (0, 1]"},
		{kmltest.CausalData + `fci(cbind(x, y), resamples: 3, fraction: 0.1)`, "at least 10 are needed"},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a", "b"], knowledge: {tiers: [["a"], ["c"]]})`, `knowledge: tiers names "c", which is not a variable`},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a", "b"], knowledge: {order: []})`, `unknown field "order"`},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a", "b"], knowledge: {required: [["a"]]})`, `each required edge must be a pair`},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a", "b"], knowledge: {tiers: [["b"], ["a"]], required: [["a", "b"]]})`, `the edge a → b is both required and forbidden`},
		{kmltest.CausalData + `pc(cbind(x, y), names: ["a", "b"], knowledge: {tiers: [["a", "b"], ["a"]]})`, `"a" is in tiers 1 and 2`},
		{`prewhiten([1, 2, 3], order: 2)`, "too few for an autoregression of order 2"},
		{`prewhiten([1, 2, 3], order: "bic")`, `order must be "aic" or a whole number`},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// pc with a tier orients the chain x — y — z (no v-structure: the data
// leave it undirected) as x → y → z; a required edge the data separate is
// kept and reported with its separating set.
func TestPCKnowledgeBinding(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 300, seed: 1)
let y = x + draw(normal(0, 1), 300, seed: 2)
let z = y + draw(normal(0, 1), 300, seed: 3)
let g = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"])
let h = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], knowledge: {tiers: [["x"], ["y", "z"]]})
let k = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], knowledge: {required: [["x", "z"]]})
`)
	for name, want := range map[string]string{"g": "x — y\ny — z", "h": "x → y\ny → z", "k": "x — y\nx → z\ny — z"} {
		g := kmltest.Lookup[*eval.Record](t, in, name)
		if text, _ := g.Attr("text"); string(text.(eval.Str)) != want {
			t.Errorf("%s: graph %q, want %q", name, text, want)
		}
	}
	k := kmltest.Lookup[*eval.Record](t, in, "k")
	kc, _ := k.Attr("knowledge_conflicts")
	if s := kc.String(); !strings.HasPrefix(s, `[{kind: "required edge separated by the data", x: "x", y: "z", sepset: ["y"], pvalue: `) {
		t.Errorf("conflicts %s", s)
	}
}

// fci on a → b ← L → c ← d with L hidden: b <-> c marks the latent common
// cause (pc, assuming none, leaves b — c as a conflict), and a, d point
// into it with circles at their ends; dot draws the marks.
func TestFCIBinding(t *testing.T) {
	in, _ := kmltest.Run(t, `
let n = 2000
let a = draw(normal(0, 1), n, seed: 1)
let d = draw(normal(0, 1), n, seed: 2)
let l = draw(normal(0, 1), n, seed: 3)
let b = a + l + draw(normal(0, 1), n, seed: 4)
let c = d + l + draw(normal(0, 1), n, seed: 5)
let g = fci(cbind(a, b, c, d), test: "fisher_z", names: ["a", "b", "c", "d"])
let k = fci(cbind(a, b, c, d), test: "fisher_z", names: ["a", "b", "c", "d"], knowledge: {required: [["a", "b"]]})
`)
	g := kmltest.Lookup[*eval.Record](t, in, "g")
	if text, _ := g.Attr("text"); string(text.(eval.Str)) != "a o-> b\nb <-> c\nd o-> c" {
		t.Errorf("PAG %q", text)
	}
	if dot, _ := g.Attr("dot"); !strings.Contains(dot.String(), `"a" -> "b" [dir=both, arrowtail=odot, arrowhead=normal];`) {
		t.Errorf("dot %s", dot)
	}
	k := kmltest.Lookup[*eval.Record](t, in, "k")
	if text, _ := k.Attr("text"); string(text.(eval.Str)) != "a --> b\nb <-> c\nd o-> c" {
		t.Errorf("PAG with knowledge %q", text)
	}
}

// resamples adds the stability record and each edge's frequency and
// label; the same seed gives the same frequencies; resamples: 0 adds
// nothing.
func TestStabilityBinding(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 200, seed: 1)
let y = draw(normal(0, 1), 200, seed: 2)
let z = x + y + draw(normal(0, 1), 200, seed: 3)
let g = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], alpha: 0.01, resamples: 30, seed: 5)
let h = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], alpha: 0.01, resamples: 30, seed: 5)
let f = fci(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], alpha: 0.01, resamples: 30, fraction: 0.7, seed: 5)
let p = pc(cbind(x, y, z), test: "fisher_z", names: ["x", "y", "z"], alpha: 0.01)
`)
	g := kmltest.Lookup[*eval.Record](t, in, "g")
	h := kmltest.Lookup[*eval.Record](t, in, "h")
	gs, _ := g.Attr("stability")
	hs, _ := h.Attr("stability")
	if gs.String() != hs.String() {
		t.Errorf("same seed, different frequencies:\n%s\n%s", gs, hs)
	}
	if s := gs.String(); !strings.HasPrefix(s, `{resamples: 30, fraction: 0.5, seed: 5, edges: [{x: "x", y: "z", adjacent: 1, types: [{type: "x → z", frequency: `) {
		t.Errorf("stability %s", s)
	}
	ev, _ := g.Attr("edges")
	e := ev.(*eval.List).Elems[0].(*eval.Record)
	if fr, _ := e.Attr("frequency"); fr.(eval.Num) < 0.9 {
		t.Errorf("x → z in %v of the subsamples", fr)
	}
	f := kmltest.Lookup[*eval.Record](t, in, "f")
	fs, _ := f.Attr("stability")
	if s := fs.String(); !strings.Contains(s, `fraction: 0.7`) || !strings.Contains(s, `{type: "x o-> z", frequency: `) {
		t.Errorf("fci stability %s", s)
	}
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	if _, ok := p.Attr("stability"); ok {
		t.Error("stability without resamples")
	}
}
