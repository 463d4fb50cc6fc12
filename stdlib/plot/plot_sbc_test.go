package plot_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestPlotSBC renders an SBC result as its ECDF-difference plot to PNG
// and SVG: the PNG decodes and is not blank; the SVG has a panel per
// parameter titled with its p-value and the band's legend.
func TestPlotSBC(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	_, err := in.Eval("t.kml", `
let y = [0.3, -0.2, 1.1, 0.5, 0.1]
model m {
  mu ~ normal(0, 1)
  s ~ lognormal(0, 0.5)
  y ~ normal(mu, s)
}
let r = sbc(m, sims: 30, seed: 1, warmup: 100, draws: 100)
plot(r, to: "sbc.png")
plot(r, to: "sbc.svg")
`)
	if err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		t.Fatal(b.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "sbc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"mu: p = ", "s: p = ", "95% simultaneous band", "ECDF difference", "fractional rank"} {
		if !bytes.Contains(data, []byte(s)) {
			t.Errorf("sbc.svg lacks %q", s)
		}
	}
	data, err = os.ReadFile(filepath.Join(dir, "sbc.png"))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if v := pixelVariance(img); v < 100 {
		t.Errorf("sbc.png looks blank (pixel variance %v)", v)
	}
}
