package stdlib_test

import (
	"bufio"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// stanCSV is one file read the way CmdStan's readers (cmdstanpy's
// scan_sampler_csv, ArviZ, cmdstanr) read a sampler CSV: config comments,
// the header, the adaptation block, the draws, the closing comments.
type stanCSV struct {
	config   map[string]string
	columns  []string
	stepSize float64
	metric   [][]float64
	draws    [][]float64
}

func readStanCSV(t *testing.T, path string) stanCSV {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	out := stanCSV{config: map[string]string{}}
	i := 0
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		l := strings.TrimSpace(strings.Replace(lines[i], "(Default)", "", 1))
		l = strings.TrimLeft(l, " #\t")
		if k, v, ok := strings.Cut(l, "="); ok && strings.Count(l, "=") == 1 {
			out.config[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	out.columns = strings.Split(lines[i], ",")
	i++
	expect := func(want string) {
		t.Helper()
		if strings.TrimSpace(lines[i]) != want {
			t.Fatalf("%s line %d: %q, want %q", path, i+1, lines[i], want)
		}
		i++
	}
	expect("# Adaptation terminated")
	label, val, _ := strings.Cut(lines[i], "=")
	if !strings.HasPrefix(label, "# Step size") {
		t.Fatalf("line %d: %q, want the step size", i+1, lines[i])
	}
	out.stepSize, err = strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil {
		t.Fatalf("step size: %v", err)
	}
	i++
	rows := 1
	switch out.config["metric"] {
	case "diag_e":
		expect("# Diagonal elements of inverse mass matrix:")
	case "dense_e":
		expect("# Elements of inverse mass matrix:")
		rows = -1
	default:
		t.Fatalf("metric = %q", out.config["metric"])
	}
	for r := 0; rows < 0 || r < rows; r++ {
		var row []float64
		for _, x := range strings.Split(strings.TrimLeft(lines[i], " #\t"), ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				t.Fatalf("line %d: metric %q: %v", i+1, x, err)
			}
			row = append(row, v)
		}
		if rows < 0 {
			rows = len(row)
		}
		out.metric = append(out.metric, row)
		i++
	}
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
		fields := strings.Split(lines[i], ",")
		if len(fields) != len(out.columns) {
			t.Fatalf("line %d: %d fields, the header has %d", i+1, len(fields), len(out.columns))
		}
		row := make([]float64, len(fields))
		for k, x := range fields {
			if row[k], err = strconv.ParseFloat(x, 64); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		out.draws = append(out.draws, row)
	}
	if i == len(lines) || !strings.Contains(strings.Join(lines[i:], "\n"), "Elapsed Time") {
		t.Fatalf("%s: no timing comments after the draws", path)
	}
	return out
}

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
			lp := lookup[*eval.Vec](t, in, "lp").Data
			a := lookup[*eval.Vec](t, in, "a").Data
			if len(lookup[*eval.Vec](t, in, "div").Data) != 360 {
				t.Errorf("divergent__ has %d draws", len(lookup[*eval.Vec](t, in, "div").Data))
			}
			want := []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__", "a", "s", "w.1", "w.2"}
			for c := 1; c <= 3; c++ {
				f := readStanCSV(t, filepath.Join(dir, "out", "draws_"+strconv.Itoa(c)+".csv"))
				if strings.Join(f.columns, ",") != strings.Join(want, ",") {
					t.Errorf("columns %v, want %v", f.columns, want)
				}
				for k, v := range map[string]string{"method": "sample", "num_samples": "120", "num_warmup": "150", "save_warmup": "0", "engaged": "1", "max_depth": "8", "id": strconv.Itoa(c), "seed": "9", "file": "draws_" + strconv.Itoa(c) + ".csv"} {
					if f.config[k] != v {
						t.Errorf("chain %d: %s = %q, want %q", c, k, f.config[k], v)
					}
				}
				if len(f.draws) != 120 {
					t.Fatalf("chain %d: %d draws", c, len(f.draws))
				}
				if metric == "diag" && (len(f.metric) != 1 || len(f.metric[0]) != 4) || metric == "dense" && (len(f.metric) != 4 || len(f.metric[0]) != 4) {
					t.Errorf("inverse metric %d×%d for 4 parameters (%s)", len(f.metric), len(f.metric[0]), metric)
				}
				if f.stepSize <= 0 || f.stepSize != f.draws[0][2] {
					t.Errorf("step size %v, stepsize__ %v", f.stepSize, f.draws[0][2])
				}
				for i, row := range f.draws {
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
	out := runIn(t, dir, `model m {
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
	f := readStanCSV(t, filepath.Join(dir, "cold_1.csv"))
	if f.config["num_warmup"] != "0" || f.stepSize != 1 || len(f.metric) != 1 || f.metric[0][0] != 1 {
		t.Errorf("warmup 0: num_warmup %q, step size %v, metric %v", f.config["num_warmup"], f.stepSize, f.metric)
	}
	for _, c := range []struct{ src, want string }{
		{`save([1, 2], to: "x.csv", format: "cmdstan")`, "saves a posterior"},
		{`save([1, 2], to: "x.csv", format: "stan")`, `format must be "auto"`},
	} {
		if got := runIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q", c.src, got)
		}
	}
}
