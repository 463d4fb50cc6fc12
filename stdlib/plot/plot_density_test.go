package plot

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// A record {grid, density, points} is drawn as grey levels with blue dots:
// dark grey where the density is high, blue pixels for the points; a
// negative density is an error.
func TestPlotDensityGrey(t *testing.T) {
	dir := t.TempDir()
	in := eval.New(eval.Options{Registry: testRegistry(), Dirs: []string{dir}, BaseDir: dir, Stdout: os.Stderr, Stderr: os.Stderr})
	src := `
let i = seq(0, 899)
let g = cbind(i % 30, floor(i / 30))
plot({grid: g, density: exp(-((g[:, 1] - 10) ^ 2 + (g[:, 2] - 15) ^ 2) / 20), points: [[5, 5], [20, 25]]}, to: "d.png")
`
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "d.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	dark, blue := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			switch {
			case r == g && g == bl && r < 0x6000:
				dark++
			case bl > 0xa000 && r < 0x3000:
				blue++
			}
		}
	}
	if dark < 300 || blue < 10 {
		t.Errorf("%d dark grey and %d blue pixels: no density or no points drawn?", dark, blue)
	}
	_, err = in.Eval("u.kml", `
let i = seq(0, 8)
plot({grid: cbind(i % 3, floor(i / 3)), density: i - 1}, to: "bad.png")
`)
	if err == nil || !strings.Contains(err.Error(), "non-negative") {
		t.Errorf("negative density: %v", err)
	}
}
