package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"testing"

	"github.com/kml-lang/kml/runtime/hmc"
)

// inkColumns is the number of columns from the left edge of img, among the
// first cols, that hold a dark pixel (text or lines).
func inkColumns(img image.Image, cols int) int {
	b := img.Bounds()
	n := 0
	for x := b.Min.X; x < b.Min.X+cols; x++ {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				n++
				break
			}
		}
	}
	return n
}

// TestSummaryLabelsFit: a summary with long parameter names (a long
// identifier, indexed elements up to [10]) is drawn with every label inside
// the picture: no ink in the leftmost columns, and the picture grows wider
// with the labels rather than squeezing the intervals.
func TestSummaryLabelsFit(t *testing.T) {
	render := func(names []string) image.Image {
		t.Helper()
		s := &hmc.Summary{}
		for i, n := range names {
			s.Params = append(s.Params, hmc.ParamSummary{Name: n, Q5: -1 - float64(i)/10, Q50: 0, Q95: 1 + float64(i)/10})
		}
		fig, err := summaryFigure(s)
		if err != nil {
			t.Fatal(err)
		}
		data, err := fig.render("png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	long := []string{"sigma_alpha", "a_very_long_parameter_name_for_the_intercept"}
	for i := 1; i <= 10; i++ {
		long = append(long, fmt.Sprintf("sigma_alpha[%d]", i))
	}
	short := []string{"mu", "tau"}
	for name, names := range map[string][]string{"long": long, "short": short} {
		if n := inkColumns(render(names), 4); n > 0 {
			t.Errorf("%s labels: ink in %d of the 4 leftmost columns: a label is clipped", name, n)
		}
	}
	if wl, ws := render(long).Bounds().Dx(), render(short).Bounds().Dx(); wl <= ws {
		t.Errorf("the picture with long labels is %d px wide, with short ones %d", wl, ws)
	}
}
