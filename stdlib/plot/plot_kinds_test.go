package plot_test

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestPlotKinds renders every kind of value plot takes, to PNG and SVG,
// from seeded values: each PNG decodes at the expected size and is not
// blank, each SVG holds the title and the axis labels, and plot returns
// the path it wrote.
func TestPlotKinds(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	_, err := in.Eval("t.kml", `
let y = [2.8, 0.8, -0.3]
model m {
  mu ~ normal(0, 5)
  tau ~ half_normal(2)
  eta[3] ~ normal(0, 1)
  theta = mu + tau * eta
  y ~ normal(theta, 1)
}
let post = sample(m, chains: 2, warmup: 200, draws: 200, seed: 1)
let x = draw(normal(0, 1), 60, seed: 2)
let values = {
  posterior: post,
  summary: summary(post),
  density: gamma(2, 1),
  mass: poisson(3.5),
  series: rbind(sin(linspace(0, 6, 50)), cos(linspace(0, 6, 50))),
  scatter: cbind(x, 2 * x),
  vector: x,
  profile: {ell: logspace(-1, 1, 20), logp: -(log(logspace(-1, 1, 20))) ^ 2},
  band: {grid: linspace(0, 1, 20), mean: linspace(0, 1, 20), lower: linspace(0, 1, 20) - 0.2, upper: linspace(0, 1, 20) + 0.2},
  power: {eps: [1, 2, 4, 8], median: [0, 0.05, 0.1, 0.2], median_se: [0, 0.02, 0.03, 0.04], bkl: [0.05, 0.4, 1, 1], bkl_se: [0.02, 0.1, 0, 0]},
  heat: {at: cbind(rep(linspace(-1, 1, 9), 9), concat(rep(-1, 9), rep(-0.75, 9), rep(-0.5, 9), rep(-0.25, 9), rep(0, 9), rep(0.25, 9), rep(0.5, 9), rep(0.75, 9), rep(1, 9))),
         mean: sin(3 * linspace(0, 6, 81)), lower: sin(3 * linspace(0, 6, 81)) - 0.5, upper: sin(3 * linspace(0, 6, 81)) + 0.5}
}
`)
	if err != nil {
		t.Fatal(err)
	}
	extra := map[string]string{"series": `, labels: ["sin", "cos"]`, "scatter": `, color: rep([1, 2], 30)`, "posterior": `, params: ["mu", "theta"]`}
	want := map[string][2]int{"posterior": {768, 0}} // 8 inches wide; height by panels
	for _, kind := range []string{"posterior", "summary", "density", "mass", "series", "scatter", "vector", "profile", "band", "power", "heat"} {
		for _, ext := range []string{"png", "svg"} {
			name := kind + "." + ext
			src := `plot(values.` + kind + `, to: "` + name + `", title: "T ` + kind + `", xlabel: "XL", ylabel: "YL"` + extra[kind] + `)`
			v, err := in.Eval("p.kml", src)
			if err != nil {
				var b bytes.Buffer
				in.Sources().Print(&b, err)
				t.Errorf("%s: %s", src, b.String())
				continue
			}
			if s, ok := v.(eval.Str); !ok || string(s) != name {
				t.Errorf("%s returned %v, want the path", src, v)
			}
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if ext == "svg" {
				for _, s := range []string{"T " + kind} {
					if !bytes.Contains(data, []byte(s)) {
						t.Errorf("%s lacks %q", name, s)
					}
				}
				if kind != "posterior" && (!bytes.Contains(data, []byte(">XL<")) || !bytes.Contains(data, []byte(">YL<"))) {
					t.Errorf("%s lacks its axis labels", name)
				}
				continue
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			w := img.Bounds().Dx()
			if ww := want[kind][0]; ww != 0 && w != ww || ww == 0 && w != 576 {
				t.Errorf("%s is %d pixels wide", name, w)
			}
			if v := pixelVariance(img); v < 100 {
				t.Errorf("%s looks blank (pixel variance %v)", name, v)
			}
		}
	}
	for _, c := range []struct{ src, want string }{
		{`plot(values.posterior, to: "x.png", params: ["nope"])`, `the posterior has no parameter "nope"`},
		{`plot(values.series, to: "x.png", labels: ["a"])`, "labels has 1 names but the matrix has 2 rows"},
		{`plot(values.scatter, to: "x.png", color: [1, 2])`, "color must give a label per row (60)"},
		{`plot(cauchy(0, 1), to: "c.png")`, ""},
	} {
		_, err := in.Eval("e.kml", c.src)
		var b bytes.Buffer
		if err != nil {
			in.Sources().Print(&b, err)
		}
		if c.want == "" && err != nil || !strings.Contains(b.String(), c.want) {
			t.Errorf("%s: %q, want %q", c.src, b.String(), c.want)
		}
	}
}

// pixelVariance is the variance of the grey levels, 0 for a blank image.
func pixelVariance(img image.Image) float64 {
	var s, s2, n float64
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bb, _ := img.At(x, y).RGBA()
			v := float64(r+g+bb) / 3 / 257
			s += v
			s2 += v * v
			n++
		}
	}
	m := s / n
	return s2/n - m*m
}
