package files_test

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestSaveCmdStan writes a posterior as CmdStan CSVs and reads them back as
// CmdStan's readers do: per-chain files, config, header order, adaptation,
// draws that equal the posterior's, and the sampler columns from draws().
func TestSaveCmdStan(t *testing.T) {
	for _, metric := range []string{"diag", "dense"} {
		t.Run(metric, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "out"), 0o755)
			var out strings.Builder
			in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
			_, err := in.Eval("t.kml", `model m {
  a ~ normal(1, 2)
  s ~ gamma(2, 2)
  w[2] ~ normal(0, s)
}
let post = sample(m, chains: 3, warmup: 150, draws: 120, seed: 9, metric: "`+metric+`", max_depth: 8)
save(post, to: "out/draws.csv", format: "cmdstan")
let lp = draws(post, "lp__")
let div = post.divergent__
let a = post.a`)
			if err != nil {
				t.Fatal(err)
			}
			lp := kmltest.Lookup[*eval.Vec](t, in, "lp").Data
			a := kmltest.Lookup[*eval.Vec](t, in, "a").Data
			if len(kmltest.Lookup[*eval.Vec](t, in, "div").Data) != 360 {
				t.Errorf("divergent__ has %d draws", len(kmltest.Lookup[*eval.Vec](t, in, "div").Data))
			}
			want := []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__", "a", "s", "w.1", "w.2"}
			for c := 1; c <= 3; c++ {
				f := kmltest.ReadStanCSV(t, filepath.Join(dir, "out", "draws_"+strconv.Itoa(c)+".csv"))
				if strings.Join(f.Columns, ",") != strings.Join(want, ",") {
					t.Errorf("columns %v, want %v", f.Columns, want)
				}
				for k, v := range map[string]string{"method": "sample", "num_samples": "120", "num_warmup": "150", "save_warmup": "0", "engaged": "1", "max_depth": "8", "id": strconv.Itoa(c), "seed": "9", "file": "draws_" + strconv.Itoa(c) + ".csv"} {
					if f.Config[k] != v {
						t.Errorf("chain %d: %s = %q, want %q", c, k, f.Config[k], v)
					}
				}
				if len(f.Draws) != 120 {
					t.Fatalf("chain %d: %d draws", c, len(f.Draws))
				}
				if metric == "diag" && (len(f.Metric) != 1 || len(f.Metric[0]) != 4) || metric == "dense" && (len(f.Metric) != 4 || len(f.Metric[0]) != 4) {
					t.Errorf("inverse metric %d×%d for 4 parameters (%s)", len(f.Metric), len(f.Metric[0]), metric)
				}
				if f.StepSize <= 0 || f.StepSize != f.Draws[0][2] {
					t.Errorf("step size %v, stepsize__ %v", f.StepSize, f.Draws[0][2])
				}
				for i, row := range f.Draws {
					k := (c-1)*120 + i
					if row[0] != lp[k] || row[7] != a[k] {
						t.Fatalf("chain %d draw %d: lp__ %v a %v, the posterior has %v %v", c, i+1, row[0], row[7], lp[k], a[k])
					}
					if row[8] <= 0 || math.Mod(row[3], 1) != 0 || row[3] > 8 {
						t.Fatalf("chain %d draw %d: s = %v, treedepth__ = %v", c, i+1, row[8], row[3])
					}
				}
			}
		})
	}
	// Without warm-up nothing is adapted, and the header says so as
	// CmdStan's does (engaged = 0, without "(Default)"); the step size
	// and metric block keeps the values used, step size 1 and identity.
	dir := t.TempDir()
	out := kmltest.RunIn(t, dir, `model m {
  a ~ normal(1, 2)
}
let post = sample(m, chains: 1, warmup: 0, draws: 20, seed: 9)
save(post, to: "cold.csv", format: "cmdstan")`)
	if strings.Contains(out, "error") {
		t.Fatal(out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "cold_1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "\n#       engaged = 0\n") {
		t.Errorf("warmup 0: the header does not say adaptation was off:\n%s", raw[:min(len(raw), 600)])
	}
	f := kmltest.ReadStanCSV(t, filepath.Join(dir, "cold_1.csv"))
	if f.Config["num_warmup"] != "0" || f.StepSize != 1 || len(f.Metric) != 1 || f.Metric[0][0] != 1 {
		t.Errorf("warmup 0: num_warmup %q, step size %v, metric %v", f.Config["num_warmup"], f.StepSize, f.Metric)
	}
	for _, c := range []struct{ src, want string }{
		{`save([1, 2], to: "x.csv", format: "cmdstan")`, "saves a posterior"},
		{`save([1, 2], to: "x.csv", format: "stan")`, `format must be "auto"`},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q", c.src, got)
		}
	}
}
