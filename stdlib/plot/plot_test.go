package plot

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// A heat map of values on a 2-D grid renders as a PNG of the plot's size
// (6 × 4 inches at gonum/plot's 96 dpi for PNG); points that are not a full
// grid are refused with the reason.
func TestPlotHeatMap(t *testing.T) {
	dir := t.TempDir()
	in := eval.New(eval.Options{Registry: testRegistry(), Dirs: []string{dir}, BaseDir: dir, Stdout: os.Stderr, Stderr: os.Stderr})
	src := `
let i = seq(0, 99)
let at = cbind(i % 10, floor(i / 10))
plot({at: at, value: sin(at[:, 1]) * cos(at[:, 2])}, to: "heat.png")
`
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "heat.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 576 || b.Dy() != 384 {
		t.Errorf("the PNG is %d×%d, want 576×384", b.Dx(), b.Dy())
	}
	// The values' signs show as red and blue.
	red, blue := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, _, bl, _ := img.At(x, y).RGBA()
			switch {
			case r > 0xb000 && bl < 0x6000:
				red++
			case bl > 0xb000 && r < 0x6000:
				blue++
			}
		}
	}
	if red < 1000 || blue < 1000 {
		t.Errorf("%d red and %d blue pixels: no heat map drawn?", red, blue)
	}
	// Not a grid: one point missing.
	_, err = in.Eval("u.kml", `
let i = seq(0, 98)
plot({at: cbind(i % 10, floor(i / 10)), mean: i}, to: "bad.png")
`)
	if err == nil || !strings.Contains(err.Error(), "full 2-D grid") {
		t.Errorf("error %v, want one about a full 2-D grid", err)
	}
}
