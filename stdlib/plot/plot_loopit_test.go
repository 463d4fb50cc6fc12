package plot_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestPlotLOOPIT renders a LOO-PIT result as its ECDF-difference plot to
// PNG and SVG: the PNG decodes and is not blank; the SVG has the title
// with the p-value, the band's legend and the axis. KML_PLOT_DIR keeps the
// pictures for a look.
func TestPlotLOOPIT(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("KML_PLOT_DIR"); d != "" {
		dir = d
	}
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	_, err := in.Eval("t.kml", `
let y = draw(normal(0.5, 1.3), 60, seed: 5)
model m {
  mu ~ normal(0, 3)
  s ~ lognormal(0, 1)
  y ~ normal(mu, s)
}
let post = sample(m, seed: 1, chains: 2, warmup: 300, draws: 500)
let r = loo_pit(post, seed: 2)
plot(r, to: "loo_pit.png")
plot(r, to: "loo_pit.svg")
`)
	if err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		t.Fatal(b.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "loo_pit.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"LOO-PIT of model m (60 points): p = ", "95% simultaneous band", "ECDF difference", "ECDF − uniform"} {
		if !bytes.Contains(data, []byte(s)) {
			t.Errorf("loo_pit.svg lacks %q", s)
		}
	}
	data, err = os.ReadFile(filepath.Join(dir, "loo_pit.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if v := pixelVariance(img); v < 100 {
		t.Errorf("loo_pit.png looks blank (pixel variance %v)", v)
	}
}
