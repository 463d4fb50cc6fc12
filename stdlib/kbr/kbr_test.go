package kbr_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kbr"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

const kbrData = `
let x = draw(normal(0, 1), 200, seed: 1)
let y = x + draw(normal(0, 0.5), 200, seed: 2)
let u = draw(normal(0, 1), 150, seed: 3)
`

// The builtins pass their arguments to runtime/kbr unchanged: the KML
// results equal the runtime's on the same data and settings, and the
// defaults are the median heuristic, eps = 0.1/sqrt(n) and delta = eps².
func TestKBRBindingMatchesRuntime(t *testing.T) {
	in, _ := kmltest.Run(t, kbrData+`
let post = kbr(joint: [x, y], prior: u, kx: rbf(0.9), ky: rbf(1.1), eps: 0.01, delta: 0.03)
let c = condition(post, [-1, 0.5])
let m = mean(c)
fn sq(t) = t^2
let e = expect(c, sq)
let raw = expect(condition(post, 0.5), sq, normalise: false)
let def = kbr(joint: [x, y], prior: u)
let cm = mean(condition(cme(x, y, ky: rbf(1.1), eps: 0.01), 0.5))
`)
	col := func(name string) *mat.Dense {
		return mat.NewDense(200, 1, kmltest.Lookup[*eval.Vec](t, in, name).Data)
	}
	x, y := col("x"), col("y")
	u := mat.NewDense(150, 1, kmltest.Lookup[*eval.Vec](t, in, "u").Data)
	kx, _ := kernels.NewRBF([]float64{0.9})
	ky, _ := kernels.NewRBF([]float64{1.1})
	p, err := kbr.New(x, y, kx, ky, kbr.Prior{U: u}, kbr.Settings{Eps: 0.01, Delta: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	w, _ := p.Condition(mat.NewDense(2, 1, []float64{-1, 0.5}))
	m := kmltest.Lookup[*eval.Vec](t, in, "m").Data
	e := kmltest.Lookup[*eval.Vec](t, in, "e").Data
	for j, obs := range []float64{-1, 0.5} {
		wj, _ := kbr.Normalise(mat.Col(nil, j, w))
		var mean, sq, rawSq float64
		for i, v := range wj {
			mean += v * x.At(i, 0)
			sq += v * x.At(i, 0) * x.At(i, 0)
			rawSq += w.At(i, j) * x.At(i, 0) * x.At(i, 0)
		}
		if math.Abs(m[j]-mean) > 1e-12 || math.Abs(e[j]-sq) > 1e-12 {
			t.Errorf("y = %v: mean %v expect %v, want %v %v", obs, m[j], e[j], mean, sq)
		}
		if obs == 0.5 {
			if raw := float64(kmltest.Lookup[eval.Num](t, in, "raw")); math.Abs(raw-rawSq) > 1e-12 {
				t.Errorf("expect(normalise: false) = %v, want %v", raw, rawSq)
			}
		}
	}
	def := kmltest.Lookup[eval.HasAttrs](t, in, "def")
	mx, _ := kernels.MedianHeuristic(x, 1)
	wantK, _ := kernels.NewRBF([]float64{mx})
	if kv, _ := def.Attr("kx"); kv.String() != wantK.String() {
		t.Errorf("default kx %s, want %s", kv, wantK)
	}
	if eps, _ := def.Attr("eps"); math.Abs(float64(eps.(eval.Num))-0.1/math.Sqrt(200)) > 1e-15 {
		t.Errorf("default eps %v", eps)
	}
	if d, _ := def.Attr("delta"); math.Abs(float64(d.(eval.Num))-0.01/200) > 1e-17 {
		t.Errorf("default delta %v", d)
	}
	c, _ := kbr.NewCME(x, y, ky, kbr.Settings{Eps: 0.01})
	cw, _ := c.Condition(mat.NewDense(1, 1, []float64{0.5}))
	want, _ := kbr.Mean(x, mat.Col(nil, 0, cw), true)
	if got := float64(kmltest.Lookup[eval.Num](t, in, "cm")); math.Abs(got-want[0]) > 1e-12 {
		t.Errorf("cme mean %v, want %v", got, want[0])
	}
}

// Multi-column samples go through {x:, y:}; one observation is a vector as
// wide as y; mean and preimage give one row per observation.
func TestKBRMultivariateShapes(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = cbind(draw(normal(0, 1), 120, seed: 1), draw(normal(0, 1), 120, seed: 2))
let y = x + 0.3 * cbind(draw(normal(0, 1), 120, seed: 3), draw(normal(0, 1), 120, seed: 4))
let post = kbr(joint: {x: x, y: y})
let one = mean(condition(post, [0.5, -0.5]))
let many = preimage(condition(post, rbind([0.5, -0.5], [0, 0], [1, 1])))
`)
	if one := kmltest.Lookup[*eval.Vec](t, in, "one").Data; len(one) != 2 || one[0] < 0.1 || one[1] > -0.1 {
		t.Errorf("mean given (0.5, -0.5) is %v", one)
	}
	if r, c := kmltest.Lookup[*eval.Mat](t, in, "many").Dims(); r != 3 || c != 2 {
		t.Errorf("preimage of 3 observations is %d×%d", r, c)
	}
}

func TestKBRErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`kbr(joint: 5)`, "1:12: error: kbr: joint must be [x, y]"},
		{`kbr(joint: {x: [1, 2, 3], y: [1, 2]})`, "kbr: x has 3 rows and y has 2"},
		{`kbr(joint: [[1, 2, 3], [2, 3, 1]], eps: -1)`, "1:41: error: kbr: eps must be a positive number, got -1"},
		{`kbr(joint: [[1, 2, 3], [2, 3, 1]], prior: rbind([1, 2]))`, "1:43: error: kbr: the prior sample has 2 columns but x has 1"},
		{`kbr(joint: [[1, 2, 3], [2, 3, 1]], prior: "a")`, "kbr: prior must be a sample"},
		{`weighted([1, 2, 3], [1, 2])`, "1:21: error: weighted: 2 weights for 3 points"},
		{`condition(5, 1)`, "condition: post must be the result of kbr or cme, got number"},
		{`condition(kbr(joint: {x: [1, 2, 3], y: rbind([1, 2], [3, 4], [5, 6])}), [1, 2, 3])`, "an observation has 2 values here (y has 2 columns), got vector of length 3"},
		{`expect(weighted([1, 2], [1, 1]), 3)`, "expect: f must be a function, got number"},
		{`expect([1, 2], 3)`, "expect: c must be a weighted sample"},
		{`preimage(weighted([1, 2], [1, 1]))`, "preimage: this weighted sample has no kernel"},
		{`preimage(weighted([1, 2], [1, 1]), kernel: laplacian(1))`, "needs a Gaussian (rbf) kernel, got laplacian(1)"},
		{`mean(weighted([1, 2], [1, -1]))`, "mean: the weights sum to 0"},
		{"fn f(t) = if t > 1.5 then [t, t, t] else [t, t]\nexpect(weighted([1, 2], [1, 1]), f)", "f returned 2 values at point 1 and 3 at point 2"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// simulate calls the prior and the simulator once on the whole batch; abc
// keeps only parameters whose simulation fell within the tolerance, with
// equal weights, and reports its counts.
func TestSimulateAndABC(t *testing.T) {
	in, _ := kmltest.Run(t, `
fn sim(x) = 2 * x + draw(normal(0, 0.5), len(x))
let j = simulate(normal(0, 1), sim, 300, seed: 1)
let jx = j[1]
let jy = j[2]
fn prior2(n) = cbind(draw(normal(0, 1), n), draw(normal(5, 1), n))
fn sim2(x) = x[:, 1] + x[:, 2]
let j2 = simulate(prior2, sim2, 50)
let ab = abc(normal(0, 1), sim, rbind([1], [-1]), tolerance: 0.05, n: 150, seed: 2)
let abm = mean(ab)
fn fn0(a, b) = a + b
let t = timed(fn0, 3, 4)
`)
	jx, jy := kmltest.Lookup[*eval.Vec](t, in, "jx").Data, kmltest.Lookup[*eval.Vec](t, in, "jy").Data
	var resid float64
	for i := range jx {
		resid += (jy[i] - 2*jx[i]) * (jy[i] - 2*jx[i]) / float64(len(jx))
	}
	if math.Abs(resid-0.25) > 0.1 {
		t.Errorf("simulated noise variance %.3f, want about 0.25", resid)
	}
	if r := kmltest.Lookup[*eval.List](t, in, "j2"); len(r.Elems) != 2 {
		t.Errorf("simulate gave %d items", len(r.Elems))
	}
	ab := kmltest.Lookup[eval.HasAttrs](t, in, "ab")
	acc, _ := ab.Attr("accepted")
	if got := acc.(*eval.Vec).Data; got[0] != 150 || got[1] != 150 {
		t.Errorf("accepted %v, want 150 each", got)
	}
	// Posterior mean 2y/4.25; 150 draws of sd 0.24 give a standard error 0.02.
	for i, y := range []float64{1, -1} {
		if m := kmltest.Lookup[*eval.Vec](t, in, "abm").Data[i]; math.Abs(m-2*y/4.25) > 0.08 {
			t.Errorf("ABC mean given %v: %.3f, exact %.3f", y, m, 2*y/4.25)
		}
	}
	if tv, _ := kmltest.Lookup[eval.HasAttrs](t, in, "t").Attr("value"); float64(tv.(eval.Num)) != 7 {
		t.Errorf("timed value %v", tv)
	}
}

func TestSimulateErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"fn fn1(x) = x\nsimulate(3, fn1, 10)", "simulate: prior must be a distribution or a function of n"},
		{"simulate(normal(0, 1), 3, 10)", "simulate: simulator must be a function, got number"},
		{"fn bad(x) = [1, 2]\nsimulate(normal(0, 1), bad, 10)", "simulate: simulator returned vector of length 2 for 10 parameters"},
		{"fn p(n) = [1, 2]\nfn s(x) = x\nsimulate(p, s, 10)", "prior(10) returned vector of length 2, not 10 draws"},
		{"fn s(x) = x\nabc(normal(0, 1), s, 50, tolerance: 0.001, max_sims: 2000)", "abc: observation 1: no simulation came within 0.001"},
		{"fn s(x) = x\nabc(normal(0, 1), s, 0, tolerance: -1)", "abc: tolerance must be positive"},
		{"timed(3)", "timed: f must be a function, got number"},
		// Issue 38's harness: 1e12 draws crashed with Go's out of memory.
		{"fn s(x) = x\nsimulate(normal(0, 1), s, 1e12)", "simulate: the 1000000000000 parameters drawn from prior would be 1000000000000×1 numbers"},
		{"fn s(x) = x\nabc(normal(0, 1), s, 0, tolerance: 1, batch: 1e12, max_sims: 1e13)", "abc: the 1000000000000 parameters drawn from prior would be"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// kbr_filter and run pass the sequence to runtime/kbr.Filter unchanged;
// iterate threads a state through a function.
func TestKBRFilterBinding(t *testing.T) {
	in, _ := kmltest.Run(t, `
fn walk(s, t) = s + [1, t]
let w = iterate(walk, [0, 0], 3)
fn step(s, t) = concat(0.9 * s[1:2] + draw(normal(0, 0.3), 2), 0.9 * s[1:2] + draw(normal(0, 0.5), 2))
let seq = iterate(step, [1, 0, 1, 0], 60, )
let f = kbr_filter(seq[1:50, 1:2], seq[1:50, 3:4], kx: rbf(0.5), ky: rbf(0.7), eps: 0.01, delta: 0.001)
let est = run(f, seq[51:60, 3:4])
let one = run(f, [0.5, 0.2])
let fs = kbr_filter(seq[1:50, 1:2], seq[1:50, 3:4], kx: rbf(0.5), ky: rbf(0.7), eps: 0.01, delta: 0.001, smooth: true)
let sm = run(fs, seq[51:60, 3:4])
let pr = run(f, seq[51:60, 3:4], predict: true)
`)
	if w := kmltest.Lookup[*eval.Mat](t, in, "w"); w.M.At(2, 0) != 3 || w.M.At(2, 1) != 6 {
		t.Errorf("iterate gave %v", w)
	}
	seq := kmltest.Lookup[*eval.Mat](t, in, "seq").M
	states := mat.DenseCopyOf(seq.Slice(0, 50, 0, 2))
	obs := mat.DenseCopyOf(seq.Slice(0, 50, 2, 4))
	kx, _ := kernels.NewRBF([]float64{0.5})
	ky, _ := kernels.NewRBF([]float64{0.7})
	f, err := kbr.NewFilter(states, obs, kx, ky, kbr.Settings{Eps: 0.01, Delta: 0.001}, kbr.TransitionSample)
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := f.Run(context.Background(), mat.DenseCopyOf(seq.Slice(50, 60, 2, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if d := mat.Norm(func() *mat.Dense { var d mat.Dense; d.Sub(kmltest.Lookup[*eval.Mat](t, in, "est").M, want); return &d }(), math.Inf(1)); d > 1e-12 {
		t.Errorf("run differs from the runtime by %g", d)
	}
	if one := kmltest.Lookup[*eval.Vec](t, in, "one").Data; len(one) != 2 {
		t.Errorf("one observation gave %v", one)
	}
	w, _, _ := f.Run(context.Background(), mat.DenseCopyOf(seq.Slice(50, 60, 2, 4)))
	_, wantS, err := f.Smooth(context.Background(), w, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	_, wantP, err := f.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]*mat.Dense{"sm": wantS, "pr": wantP} {
		if !mat.EqualApprox(kmltest.Lookup[*eval.Mat](t, in, name).M, want, 1e-12) {
			t.Errorf("%s differs from the runtime", name)
		}
	}
}

func TestKBRFilterErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`kbr_filter(rbind([1, 2], [2, 3], [3, 4]), [1, 2])`, "kbr_filter: x has 3 rows and y has 2"},
		{`kbr_filter([1, 2], [1, 2])`, "kbr_filter: the training sequence needs at least 3 steps, got 2"},
		{`run(5, [1])`, "run: f must be a filter from kbr_filter, got number"},
		{`kbr_filter([1, 2, 3, 4], [1, 2, 3, 4], transition: "x")`, `kbr_filter: transition must be "sample" or "operator", got "x"`},
		{"let f = kbr_filter([1, 2, 3, 4], [1, 2, 3, 4])\nrun(f, rbind([1, 2]))", "run: observations must have 1 columns (as y), got matrix 1×2"},
		{"let f = kbr_filter([1, 2, 3, 4], [1, 2, 3, 4], smooth: true)\nrun(f, [1, 2], predict: true)", "run: predict: true asks for one-step predictions, but this filter smooths"},
		{`kbr_filter([1, 2, 3, 4], [1, 2, 3, 4], smooth: true, smooth_delta: 0)`, "kbr_filter: smooth_delta must be a positive number, got 0"},
		{"fn g(s, t) = if t > 1 then [1, 2] else 1\niterate(g, 0, 3)", "iterate: f returned 1 values at step 1 and 2 at step 2"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// cv passes its grids, folds and seeded stream to runtime/kbr.CV and
// reports the smallest score.
func TestCVBinding(t *testing.T) {
	in, _ := kmltest.Run(t, kbrData+`
let c = cv([x, y], kx: rbf(1), ky: rbf(1), eps: [0.001, 0.1], delta: [1e-6, 0.01, 1], folds: 4, seed: 5)
let bad = cv([x, y], eps: [0.01], delta: [0.01], criterion: "pointwise", seed: 5)
`)
	col := func(name string) *mat.Dense {
		return mat.NewDense(200, 1, kmltest.Lookup[*eval.Vec](t, in, name).Data)
	}
	k, _ := kernels.NewRBF([]float64{1})
	want, err := kbr.CV(context.Background(), col("x"), col("y"), k, k, []float64{0.001, 0.1}, []float64{1e-6, 0.01, 1}, 4, kbr.Marginal, kbr.Settings{}, rng.New(5, rng.Builtin))
	if err != nil {
		t.Fatal(err)
	}
	c := kmltest.Lookup[eval.HasAttrs](t, in, "c")
	scores, _ := c.Attr("scores")
	if !mat.Equal(scores.(*eval.Mat).M, want) {
		t.Errorf("scores %v, want %v", scores, mat.Formatted(want))
	}
	best, _ := c.Attr("score")
	if min := mat.Min(want); float64(best.(eval.Num)) != min {
		t.Errorf("best score %v, want the smallest %v", best, min)
	}
	for _, src := range []struct{ src, want string }{
		{`cv([[1, 2, 3], [2, 3, 1]], eps: [0, 1])`, "cv: every eps must be a positive number, got 0"},
		{`cv([[1, 2, 3], [2, 3, 1]], criterion: "x")`, `cv: criterion must be "marginal" or "pointwise", got "x"`},
		{`cv([[1, 2, 3], [2, 3, 1]], folds: 4)`, "cv: folds must be from 2 to the 3 pairs, got 4"},
	} {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
		_, err := in.Eval("t.kml", src.src)
		if err == nil || !strings.Contains(err.Error(), src.want) {
			t.Errorf("%s: got %v, want %q", src.src, err, src.want)
		}
	}
}

// A pre-image that cannot be computed falls back to the weighted mean and
// says so; so does an abc run that keeps fewer parameters than asked.
func TestKBRWarnings(t *testing.T) {
	_, out := kmltest.Run(t, `
let p = preimage(weighted([-1, 0, 1], [0.75, -1, 0.75]), kernel: rbf(1))
fn s(x) = x + draw(normal(0, 1), len(x))
let a = abc(normal(0, 1), s, 0, tolerance: 0.01, n: 1000, max_sims: 2000, seed: 1)
`)
	for _, want := range []string{
		"t.kml:2:9: warning: preimage: the fixed-point iteration did not converge for 1 of 1 observations; the weighted mean was used",
		"t.kml:4:9: warning: abc: 1 of 1 observations kept fewer than n = 1000 parameters within 2000 simulations",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output %q lacks %q", out.String(), want)
		}
	}
}

func TestWeightedJSON(t *testing.T) {
	in, _ := kmltest.Run(t, `let c = weighted([1, 2], [0.25, 0.75])`)
	b, err := json.Marshal(eval.ToJSON(kmltest.Lookup[eval.Value](t, in, "c")))
	if err != nil || string(b) != `{"x":[1,2],"w":[0.25,0.75]}` {
		t.Errorf("JSON %s (%v)", b, err)
	}
}

func TestRunPreimage(t *testing.T) {
	in, _ := kmltest.Run(t, `
fn step(s, t) = concat(0.9 * s[1:2] + draw(normal(0, 0.3), 2), 0.9 * s[1:2] + draw(normal(0, 0.5), 2))
let seq = iterate(step, [1, 0, 1, 0], 60)
let f = kbr_filter(seq[1:50, 1:2], seq[1:50, 3:4], kx: rbf(0.5), ky: rbf(0.7), eps: 0.01, delta: 0.001)
let est = run(f, seq[51:60, 3:4], estimate: "preimage")
`)
	seq := kmltest.Lookup[*eval.Mat](t, in, "seq").M
	kx, _ := kernels.NewRBF([]float64{0.5})
	ky, _ := kernels.NewRBF([]float64{0.7})
	f, _ := kbr.NewFilter(mat.DenseCopyOf(seq.Slice(0, 50, 0, 2)), mat.DenseCopyOf(seq.Slice(0, 50, 2, 4)), kx, ky, kbr.Settings{Eps: 0.01, Delta: 0.001}, kbr.TransitionSample)
	w, _, err := f.Run(context.Background(), mat.DenseCopyOf(seq.Slice(50, 60, 2, 4)))
	if err != nil {
		t.Fatal(err)
	}
	est := kmltest.Lookup[*eval.Mat](t, in, "est").M
	for s := 0; s < 10; s++ {
		pt, _, _ := kbr.Preimage(kx, f.X, mat.Col(nil, s, w), kbr.PreimageSettings{})
		if pt[0] != est.At(s, 0) || pt[1] != est.At(s, 1) {
			t.Errorf("step %d: %v, want the pre-image %v", s+1, mat.Row(nil, s, est), pt)
		}
	}
	var out bytes.Buffer
	bad := eval.New(eval.Options{Stdout: &out, Stderr: &out})
	_, err = bad.Eval("t.kml", "let f = kbr_filter([1, 2, 3, 4], [1, 2, 3, 4])\nrun(f, [1, 2], estimate: \"mode\")")
	if err == nil || !strings.Contains(err.Error(), `run: estimate must be "mean" or "preimage", got "mode"`) {
		t.Errorf("bad estimate: %v", err)
	}
}
