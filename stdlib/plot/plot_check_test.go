package plot_test

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestPlotChecks renders the predictive-check kinds and the rank plot to
// PNG and SVG from seeded values: each PNG decodes and is not blank; each
// SVG holds its legend (y_rep and y; T(y_rep) and T(y); one entry per
// chain) and, for stat:, the predictive p-value computed here from the
// check's own replicates; misuse is refused at the argument.
func TestPlotChecks(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	_, err := in.Eval("t.kml", `
let y = [2.8, 0.8, -0.3, 1.9, 4.2, 0.1, 1.5, 2.2]
model m {
  mu ~ normal(0, 5)
  sigma ~ half_normal(2)
  y ~ normal(mu, sigma)
}
let post = sample(m, chains: 4, warmup: 200, draws: 200, seed: 1)
let check = ppc(post, draws: 300, seed: 2)
let prior = prior_predictive(m, draws: 100, seed: 3)
let z = [3, 0, 2, 5, 1]
model two {
  mu ~ normal(0, 1)
  y ~ normal(mu, 1)
  z ~ poisson(exp(mu))
}
let both = prior_predictive(two, draws: 80, seed: 4)
fn spread(v) = max(v) - min(v)
fn pair(v) = [1, 2]
`)
	if err != nil {
		t.Fatal(err)
	}
	// The p-value of the mean, from the replicates.
	check, _ := in.Lookup("check")
	rec := check.(*eval.Record)
	yrep, _ := rec.Attr("yrep")
	reps, _ := yrep.(*eval.Record).Attr("y")
	m := reps.(*eval.Mat)
	r, c := m.Dims()
	ty := (2.8 + 0.8 - 0.3 + 1.9 + 4.2 + 0.1 + 1.5 + 2.2) / 8
	above := 0
	for i := range r {
		s := 0.0
		for j := range c {
			s += m.M.At(i, j)
		}
		if s/float64(c) >= ty {
			above++
		}
	}
	pval := fmt.Sprintf("p = %.3f", float64(above)/float64(r))
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"overlay", `plot(check, to: "F")`, []string{"y_rep", ">y<", "posterior predictive: y"}},
		{"prior", `plot(prior, to: "F")`, []string{"y_rep", "prior predictive: y"}},
		{"two", `plot(both, to: "F")`, []string{"prior predictive: y", "prior predictive: z"}},
		{"twostat", `plot(both, stat: "max", to: "F")`, []string{"max(y)", "max(z)"}},
		{"stat", `plot(check, stat: "mean", to: "F")`, []string{"T(y_rep)", "T(y)", "mean(y)", pval}},
		{"statfn", `plot(check, stat: spread, to: "F")`, []string{"T(y_rep)", "T(y)"}},
		{"rank", `plot(post, kind: "rank", to: "F")`, []string{"chain 1", "chain 4", "mu: rank histogram per chain", "sigma: rank"}},
	} {
		for _, ext := range []string{"png", "svg"} {
			name := tc.name + "." + ext
			if _, err := in.Eval("p.kml", strings.Replace(tc.src, `"F"`, `"`+name+`"`, 1)); err != nil {
				var b bytes.Buffer
				in.Sources().Print(&b, err)
				t.Errorf("%s: %s", tc.src, b.String())
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if ext == "svg" {
				for _, s := range tc.want {
					if !bytes.Contains(data, []byte(s)) {
						t.Errorf("%s lacks %q", name, s)
					}
				}
				continue
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if v := pixelVariance(img); v < 100 {
				t.Errorf("%s looks blank (pixel variance %v)", name, v)
			}
			if keep := os.Getenv("KML_PLOT_KEEP"); keep != "" {
				_ = os.WriteFile(filepath.Join(keep, name), data, 0o644)
			}
		}
	}
	for _, c := range []struct{ src, want string }{
		{`plot(post, stat: "mean", to: "x.png")`, `e.kml:1:18: error: plot: stat: is for a check`},
		{`plot(check, stat: "mode", to: "x.png")`, `stat must be "mean", "sd", "median", "min", "max" or a function`},
		{`plot(post, kind: "ranks", to: "x.png")`, `e.kml:1:18: error: plot: kind: is for a posterior, "trace" (the default) or "rank"`},
		{`plot(check, kind: "rank", to: "x.png")`, `kind: is for a posterior`},
		{`plot(check, stat: pair, to: "x.png")`, `stat must return a number`},
	} {
		_, err := in.Eval("e.kml", c.src)
		var b bytes.Buffer
		if err != nil {
			in.Sources().Print(&b, err)
		}
		if err == nil || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: %q, want %q", c.src, b.String(), c.want)
		}
	}
}
