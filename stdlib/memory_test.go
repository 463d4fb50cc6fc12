package stdlib_test

import (
	"bytes"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/progress"
)

// TestMemoryBudget runs computations whose dense results would not fit in
// a small budget: each must end in a clear, positioned error that says what
// to do instead — never the Go runtime's out-of-memory crash — and the same
// computations at a size that fits must still work, allocating less than
// the budget in all (a dense path would allocate several times the budget).
func TestMemoryBudget(t *testing.T) {
	const budget = 64 << 20
	cases := []struct{ src, want string }{
		{`let x = cbind(draw(normal(0, 1), 200000, seed: 1))
let g = gram(rbf(1), x)`, "2:9: error: gram: the Gram matrix would be 200000×200000 numbers (298 GB), more than the memory budget of 64 MB"},
		{`let x = cbind(draw(normal(0, 1), 200000, seed: 1))
let g = gram(rbf(1), x, x[1:10, :])`, ""},
		{`let m = cbind(draw(normal(0, 1), 30000, seed: 1), draw(normal(0, 1), 30000, seed: 2))
let p = m @ transpose(m)`, "2:11: error: the product would be 30000×30000 numbers (6.71 GB)"},
		{`let m = cbind(draw(normal(0, 1), 30000, seed: 1), draw(normal(0, 1), 30000, seed: 2))
let p = transpose(m) @ m`, ""},
		// A test whose exact Gram matrices (6000², 288 MB) exceed the
		// budget takes the low-rank path; HSIC at 4000 pairs (two 4000²
		// matrices, 256 MB) is computed blockwise. (The sizes,
		// 100,000 rows per sample and 60,000 pairs, took a minute.)
		{`let x = cbind(draw(normal(0, 1), 3000, seed: 1))
let y = cbind(draw(normal(0.05, 1), 3000, seed: 2))
let t = mmd_test(x, y, rbf(1), permutations: 20, seed: 3)
if t.approx != "nystrom" then print(1 @ 1) else 0`, ""},
		{`let x = cbind(draw(normal(0, 1), 100000, seed: 1))
let t = mmd_test(x, x, rbf(1), approx: "exact", permutations: 20, seed: 3)`, "2:9: error: mmd_test: the test's exact Gram matrices would be 200000×200000 numbers"},
		{`let x = cbind(draw(normal(0, 1), 4000, seed: 1))
let h = hsic(x, x, kx: rbf(1), ky: rbf(1))`, ""},
		// Vectors: rep, linspace, seq and elementwise results are checked
		// before they are allocated (rep(1, 5e7) under a 100 MB budget
		// peaked at 2.57 GB), and rep allocates once at its final size.
		{`let v = rep(1, 5e7)`, "1:9: error: rep: the result would be 50000000 numbers (381 MB), more than the memory budget of 64 MB"},
		{`let v = rep([1, 2], 5e6)`, "1:9: error: rep: the result would be 10000000 numbers (76.3 MB)"},
		{`let v = linspace(0, 1, 2e7)`, "1:9: error: linspace: the result would be 20000000 numbers (153 MB)"},
		{`let v = seq(1, 2e7)`, "1:9: error: seq: the result would be 20000000 numbers"},
		{`let a = cbind(linspace(0, 1, 3000))
let b = a + transpose(a)`, "2:11: error: the result of + would be 9000000 numbers (68.7 MB)"},
		{`let v = rep([1, 2], 1e6)
let w = v * 2 + 1`, ""},
	}
	for _, c := range cases {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: budget})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := in.Eval("t.kml", c.src)
		runtime.ReadMemStats(&after)
		var msg bytes.Buffer
		if err != nil {
			in.Sources().Print(&msg, err)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s\nunder the budget: %s", c.src, msg.String())
		case c.want == "" && after.TotalAlloc-before.TotalAlloc > budget:
			t.Errorf("%s\nallocated %d MB, more than the budget of %d MB", c.src, (after.TotalAlloc-before.TotalAlloc)>>20, budget>>20)
		case c.want != "" && !strings.Contains(msg.String(), c.want):
			t.Errorf("%s\ngot %q\nwant %q", c.src, msg.String(), c.want)
		}
	}
}

// TestBlockwiseStatistics: under a budget too small for the Gram matrices,
// mmd and hsic are computed blockwise and equal the dense results; a test's
// "auto" path turns low-rank (rank 50: its features and buffers, 1.4 MB,
// fit in the budget of 2 MB).
func TestBlockwiseStatistics(t *testing.T) {
	src := `
let x = cbind(draw(normal(0, 1), 300, seed: 1), draw(normal(0, 1), 300, seed: 2))
let y = cbind(draw(normal(0.3, 1), 250, seed: 3), draw(normal(0, 1), 250, seed: 4))
let u = mmd(x, y, rbf(1))
let b = mmd(x, y, rbf(1), estimator: "biased")
let h = hsic(x, x[:, 1] + x[:, 2], kx: rbf(1), ky: rbf(2))
let hu = hsic(x, x[:, 1] + x[:, 2], kx: rbf(1), ky: rbf(2), estimator: "unbiased")
let t = mmd_test(x, y, rbf(1), permutations: 50, rank: 50, seed: 5)
`
	values := func(budget int64) map[string]eval.Value {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: budget})
		if _, err := in.Eval("t.kml", src); err != nil {
			t.Fatal(err)
		}
		m := map[string]eval.Value{}
		for _, n := range []string{"u", "b", "h", "hu", "t"} {
			m[n], _ = in.Lookup(n)
		}
		return m
	}
	dense, blocked := values(0), values(2<<20)
	for _, n := range []string{"u", "b", "h", "hu"} {
		d, bl := float64(dense[n].(eval.Num)), float64(blocked[n].(eval.Num))
		if math.Abs(d-bl) > 1e-12*math.Max(1e-3, math.Abs(d)) {
			t.Errorf("%s: blockwise %v, dense %v", n, bl, d)
		}
	}
	approx := func(v eval.Value) string {
		a, _ := v.(*eval.Record).Attr("approx")
		return string(a.(eval.Str))
	}
	if approx(dense["t"]) != "exact" || approx(blocked["t"]) != "nystrom" {
		t.Errorf("test paths: %s with the default budget, %s with 2 MB", approx(dense["t"]), approx(blocked["t"]))
	}
}

// TestMemoryBudgetOfModels: the exact paths of kst, kbr, cme and a GP refuse
// sizes whose n×n matrices exceed the budget, saying what to use instead.
func TestMemoryBudgetOfModels(t *testing.T) {
	pre := "let x = cbind(draw(normal(0, 1), 3000, seed: 1))\nlet y = cbind(draw(normal(0, 1), 3000, seed: 2))\n"
	for _, c := range []struct{ src, want string }{
		{"print(kst(x, kernel: rbf(1), sigma0: 1, alpha: 2, beta: 1))", "fit on a subsample"},
		{"print(kbr({x: x, y: y}))", "use rank: r"},
		{"print(cme(x, y))", "use rank: r"},
		{"model m {\n  f ~ gp(x, rbf(1), inducing: \"exact\")\n  y[:, 1] ~ normal(f, 1)\n}\nprint(logp(m, {}))", `use inducing: "auto"`},
	} {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: 32 << 20})
		_, err := in.Eval("t.kml", pre+c.src)
		var msg bytes.Buffer
		if err != nil {
			in.Sources().Print(&msg, err)
		}
		if !strings.Contains(msg.String(), "memory budget") || !strings.Contains(msg.String(), c.want) {
			t.Errorf("%s:\ngot %q", c.src, msg.String())
		}
	}
}

// TestLowRankBudget: the low-rank paths of mmd_test and hsic_test are held
// to the budget too. Where two workers' permutation buffers would not fit
// beside the features but one worker's would, the test runs on one worker
// with the same result to the bit (the null does not depend on the
// workers); where even one would not fit it is refused before anything is
// allocated, with the size and what to do.
func TestLowRankBudget(t *testing.T) {
	cases := []struct {
		src     string
		fits    int64 // a budget for one worker only (lowRankBytes: 2 need more)
		refused int64 // a budget too small for one
		want    string
	}{
		// 8·10⁴·(5·50 + w·33) bytes: 24.1 MiB with 2 workers, 21.6 with 1.
		{`let x = cbind(draw(normal(0, 1), 5000, seed: 1))
let y = cbind(draw(normal(0.1, 1), 5000, seed: 2))
let t = mmd_test(x, y, rbf(1), approx: "nystrom", rank: 50, permutations: 20, seed: 3)`,
			23 << 20, 20 << 20, "3:9: error: mmd_test: the low-rank path would hold about 21.6 MB (10000×50 features, 1 of them, and the permutations' buffers)"},
		// 8·3000·(7·30 + w·31) bytes: 6.23 MiB with 2 workers, 5.52 with 1.
		{`let x = cbind(draw(normal(0, 1), 3000, seed: 1))
let y = x + cbind(draw(normal(0, 1), 3000, seed: 2))
let t = hsic_test(x, y, rbf(1), rbf(1), approx: "nystrom", rank: 30, permutations: 20, seed: 3)`,
			6 << 20, 5 << 20, "3:9: error: hsic_test: the low-rank path would hold about 5.52 MB (3000×30 features, 2 of them"},
	}
	run := func(src string, budget int64) (*eval.Record, string) {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: budget})
		if _, err := in.Eval("t.kml", src); err != nil {
			var msg bytes.Buffer
			in.Sources().Print(&msg, err)
			return nil, msg.String()
		}
		v, _ := in.Lookup("t")
		return v.(*eval.Record), ""
	}
	for _, c := range cases {
		free, msg := run(c.src, 0)
		if free == nil {
			t.Fatalf("without a small budget: %s", msg)
		}
		one, msg := run(c.src, c.fits)
		if one == nil {
			t.Errorf("under %d MB: %s", c.fits>>20, msg)
		} else {
			for _, f := range []string{"statistic", "pvalue"} {
				a, _ := free.Attr(f)
				b, _ := one.Attr(f)
				if a.(eval.Num) != b.(eval.Num) {
					t.Errorf("%s: %v on one worker, %v with no small budget", f, b, a)
				}
			}
		}
		if _, msg := run(c.src, c.refused); !strings.Contains(msg, c.want) {
			t.Errorf("under %d MB: got %q\nwant %q", c.refused>>20, msg, c.want)
		}
	}
}

// TestFitDrawsBudget: sample, laplace_sample and pathfinder refuse, before
// they start, a posterior whose draws would not fit in the budget (chains ×
// draws × (values + free reals + 7 sampler columns) numbers): a positioned
// error giving the sizes, and no progress reported, so nothing was
// sampled. A posterior that fits is made as before.
func TestFitDrawsBudget(t *testing.T) {
	const model = "model m {\n  mu ~ normal(0, 1)\n  w[2] ~ normal(0, 1)\n  [0.1, 0.5] ~ normal(mu, 1)\n}\n"
	for _, c := range []struct{ call, want string }{
		// 4 × 500,000 draws × (3 + 3 + 7) numbers = 208 MB.
		{"sample(m, chains: 4, draws: 500000, seed: 1)", "6:9: error: sample: the posterior of 4 chains × 500000 draws would be 2000000×13 numbers (198 MB), more than the memory budget of 32 MB"},
		{"laplace_sample(m, draws: 1e6, seed: 1)", "6:9: error: laplace_sample: the posterior of 1000000 draws would be 1000000×13 numbers (99.2 MB)"},
		{"pathfinder(m, draws: 5e7, seed: 1)", "6:9: error: pathfinder: the posterior of 50000000 draws would be 50000000×13 numbers (4.84 GB)"},
		{"pathfinder(m, single_draws: 2e6, paths: 2, seed: 1)", "6:9: error: pathfinder: the 2 paths × 2000000 draws pooled would be 4000000×3 numbers (91.6 MB)"},
		{"sample(m, chains: 1, warmup: 50, draws: 100, seed: 1)", ""},
	} {
		var out bytes.Buffer
		var events int
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: 32 << 20, ProgressDelay: -1,
			OnProgress: func(progress.Event) { events++ }})
		_, err := in.Eval("t.kml", model+"let p = "+c.call+"\n")
		var msg bytes.Buffer
		if err != nil {
			in.Sources().Print(&msg, err)
		}
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %s", c.call, msg.String())
		case c.want == "" && events == 0:
			t.Errorf("%s: no progress reported (the hook is not called, so the refusals prove nothing)", c.call)
		case c.want != "" && !strings.Contains(msg.String(), c.want):
			t.Errorf("%s\ngot %q\nwant %q", c.call, msg.String(), c.want)
		case c.want != "" && events > 0:
			t.Errorf("%s: %d progress events before the refusal: it started fitting", c.call, events)
		}
	}
}
