package plot

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestLegendAvoidsCurves: the legend goes to the corner its curves leave
// empty, with the names given by labels:. Here a rising line fills the
// bottom-left and top-right corners and a flat line at the bottom of the
// axis both bottom corners,
// so only the top left is free (gonum's default is the bottom right).
func TestLegendAvoidsCurves(t *testing.T) {
	dir := t.TempDir()
	in := eval.New(eval.Options{Registry: testRegistry(), Dirs: []string{dir}, BaseDir: dir, Stdout: os.Stderr, Stderr: os.Stderr})
	src := `let x = linspace(-4, 4, 201)
plot({x: x, rising: x, flat: 0 * x - 4}, labels: ["the rising line", "the flat line"], to: "l.svg")
`
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, "l.svg"))
	if err != nil {
		t.Fatal(err)
	}
	// gonum writes text flipped: <text x="X" y="-Y" ...>, Y from the bottom
	// of the 432 × 288 pt picture.
	for _, name := range []string{"the rising line", "the flat line"} {
		m := regexp.MustCompile(`<text x="([0-9.]+)" y="-([0-9.]+)"[^>]*\n?[^>]*>` + name + `</text>`).FindSubmatch(svg)
		if m == nil {
			t.Fatalf("no legend entry %q in the SVG", name)
		}
		x, _ := strconv.ParseFloat(string(m[1]), 64)
		y, _ := strconv.ParseFloat(string(m[2]), 64)
		if x > 432/2 || y < 288/2 {
			t.Errorf("legend entry %q at (%g, %g) pt: not in the free top-left corner", name, x, y)
		}
	}
	// labels: must name every series.
	_, err = in.Eval("u.kml", `let x = linspace(-4, 4, 21)
plot({x: x, a: x, b: x}, labels: ["only one"], to: "m.svg")
`)
	if err == nil {
		t.Error("labels of the wrong length were accepted")
	}
}
