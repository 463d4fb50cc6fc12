package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/lang/eval"
)

// rssCase is a script run as `kml run --max-memory budget` in a child
// process: it must end as want says (an error containing refused, or
// output containing out) with the child's peak resident memory no more
// than the budget plus runtimeAllowance.
type rssCase struct {
	name, src, budget string
	refused, out      string
	long              string // why it runs only in CI ("": always)
}

// The cases of issue 38 (each refused where it would not fit, run where
// it fits) with their peak RSS before this check (in the issue, under the
// per-result budget):
var rssCases = []rssCase{
	// 2.57 GB before: refused before anything is allocated.
	{name: "rep", src: "let x = rep(1, 5e7)\nprint(sum(x))", budget: "100MB",
		refused: "1:9: error: rep: the result would be 50000000 numbers (381 MB), more than the memory budget of 100 MB"},
	// 0.80 GB before. Both vectors fit 500 MB alone, not together.
	{name: "linspace", src: "let x = linspace(0, 1, 5e7) * 2\nprint(sum(x))", budget: "500MB",
		refused: "1:29: error: the result of * would be 50000000 numbers (381 MB), with 381 MB held by live values (381 MB in the operands)",
		long:    "fills 381 MB first"},
	{name: "linspace small", src: "let x = linspace(0, 1, 1e7) * 2\nprint(sum(x))", budget: "100MB",
		refused: "1:29: error: the result of * would be 10000000 numbers (76.3 MB), with 76.3 MB held by live values (76.3 MB in the operands)"},
	// 1.10 GB before: four 76 MB vectors, each under the budget.
	{name: "four vectors", src: "let a = rep(1, 1e7)\nlet b = rep(2, 1e7)\nlet c = rep(3, 1e7)\nlet d = rep(4, 1e7)\nprint(sum(a) + sum(d))", budget: "100MB",
		refused: "2:9: error: rep: the result would be 10000000 numbers (76.3 MB), with 76.3 MB held by live values (a 76.3 MB)"},
	{name: "four vectors fit", src: "let a = rep(1, 1e7)\nlet b = rep(2, 1e7)\nlet c = rep(3, 1e7)\nlet d = rep(4, 1e7)\nprint(sum(a) + sum(d))", budget: "400MB",
		out: "50000000", long: "fills 305 MB"},
	// 5.5 GB and 99 s before; 800 MB fits in 1 GB.
	{name: "rep 1e8", src: "let x = rep(1, 1e8)\nprint(sum(x))", budget: "1GB", out: "100000000", long: "allocates 800 MB"},
	{name: "rep 1e8 refused", src: "let x = rep(1, 1e8)\nprint(sum(x))", budget: "700MB",
		refused: "1:9: error: rep: the result would be 100000000 numbers (763 MB), more than the memory budget of 700 MB"},
	// 0.8 GB before, with no check at all.
	{name: "draw 1e8", src: "let x = draw(normal(0, 1), 1e8, seed: 1)\nprint(mean(x) < 0.001)", budget: "1GB", out: "true", long: "2 CPU-s of draws"},
	{name: "draw 1e8 refused", src: "let x = draw(normal(0, 1), 1e8, seed: 1)", budget: "700MB",
		refused: "1:9: error: draw: the draws would be 100000000 numbers (763 MB), more than the memory budget of 700 MB"},
	// mmd_test on 10⁶ + 10⁶ points peaked at 11.0 GB (rank 200): its
	// Nyström path is O(N·rank) and now held to the budget.
	{name: "mmd_test 1e6+1e6", src: mmdBig + "permutations: 20, rank: 20, seed: 3)\nprint(t.approx)", budget: "2.5GB",
		out: "nystrom", long: "a Nyström test on 2·10⁶ points, 4 CPU-s"},
	{name: "mmd_test 1e6+1e6 refused", src: mmdBig + "permutations: 20, rank: 20, seed: 3)", budget: "1GB",
		refused: "3:9: error: mmd_test: the low-rank path would hold about 1.98 GB (2000000×20 features, 1 of them"},
	{name: "mmd_test 1e6+1e6 rank 200", src: mmdBig + "permutations: 20, seed: 3)", budget: "4GB",
		refused: "3:9: error: mmd_test: the low-rank path would hold about 15.4 GB (2000000×200 features"},
	{name: "hsic_test 1e6", src: hsicBig + "permutations: 20, rank: 20, seed: 3)\nprint(t.approx)", budget: "1.5GB",
		out: "nystrom", long: "a Nyström test on 10⁶ pairs, 6 CPU-s"},
	{name: "hsic_test 1e6 refused", src: hsicBig + "permutations: 20, rank: 20, seed: 3)", budget: "1GB",
		refused: "3:9: error: hsic_test: the low-rank path would hold about 1.2 GB (1000000×20 features, 2 of them"},
	// A sampler's draws are checked before it starts: 4 chains × 5·10⁶
	// draws (1.34 GB) under 100 MB. Before, the chains ran to the end,
	// holding every draw, and only the result was refused.
	{name: "sample draws refused", src: "model m {\n  mu ~ normal(0, 1)\n}\nlet p = sample(m, chains: 4, draws: 5e6, seed: 1)", budget: "100MB",
		refused: "4:9: error: sample: the posterior of 4 chains × 5000000 draws would be 20000000×9 numbers (1.34 GB), more than the memory budget of 100 MB"},
	{name: "pathfinder draws refused", src: "model m {\n  mu ~ normal(0, 1)\n}\nlet p = pathfinder(m, draws: 5e7, seed: 1)", budget: "100MB",
		refused: "4:9: error: pathfinder: the posterior of 50000000 draws would be 50000000×9 numbers (3.35 GB), more than the memory budget of 100 MB"},
	{name: "sample fits", src: "model m {\n  mu ~ normal(0, 1)\n}\nlet p = sample(m, chains: 2, warmup: 200, draws: 20000, seed: 1)\nprint(\"sampled\")", budget: "100MB",
		out: "sampled"},
}

const mmdBig = `let x = draw(normal(0, 1), 1e6, seed: 1)
let y = draw(normal(0.01, 1), 1e6, seed: 2)
let t = mmd_test(x, y, rbf(1), `

const hsicBig = `let x = draw(normal(0, 1), 1e6, seed: 1)
let y = x + draw(normal(0, 1), 1e6, seed: 2)
let t = hsic_test(x, y, rbf(1), rbf(1), `

// TestMemoryBudgetRSS runs each case in a child process and reads its peak
// resident memory from the kernel (getrusage's ru_maxrss of the child): the
// budget bounds the process, not only the interpreter's count.
func TestMemoryBudgetRSS(t *testing.T) {
	for _, c := range rssCases {
		t.Run(c.name, func(t *testing.T) {
			if c.long != "" {
				fulltest.Require(t, c.long)
			}
			dir := t.TempDir()
			script := filepath.Join(dir, "m.kml")
			if err := os.WriteFile(script, []byte(c.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "run", "--max-memory", c.budget, script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "KML_TEST_MAIN=1")
			var out, errb strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			if _, ok := err.(*exec.ExitError); err != nil && !ok {
				t.Fatal(err)
			}
			budget, perr := eval.ParseBytes(c.budget)
			if perr != nil {
				t.Fatal(perr)
			}
			peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // kB on Linux
			cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			t.Logf("peak RSS %d MB under a budget of %s (%.2f CPU-s)", peak>>20, c.budget, cpu.Seconds())
			if limit := memoryLimit(budget); peak > limit {
				t.Errorf("peak RSS %d MB, more than the budget %s and the runtime's allowance (%d MB in all)", peak>>20, c.budget, limit>>20)
			}
			code := cmd.ProcessState.ExitCode()
			if c.refused != "" {
				if code != exitRuntime || !strings.Contains(errb.String(), c.refused) {
					t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errb.String(), exitRuntime, c.refused)
				}
			} else if code != exitOK || !strings.Contains(out.String(), c.out) {
				t.Errorf("exit %d, stdout %q, stderr:\n%s", code, out.String(), errb.String())
			}
		})
	}
}
