package plot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// The layers of 0 → 2 ← 1, 2 → 3, 3 — 4: 0 and 1 on top, 2 below, then 3;
// 4 (undirected only) on top. pc's record draws to a PNG.
func TestGraphLayoutAndPlot(t *testing.T) {
	edges := []pcEdge{{from: 0, to: 2, directed: true}, {from: 1, to: 2, directed: true}, {from: 2, to: 3, directed: true}, {from: 3, to: 4}}
	pts := graphLayout(5, edges)
	for _, c := range []struct {
		v    int
		top  float64
		slot float64
	}{{0, 0, 0.25}, {1, 0, 0.5}, {4, 0, 0.75}, {2, -1, 0.5}, {3, -2, 0.5}} {
		if y := pts[c.v].Y; y > c.top || y < c.top-0.25 {
			t.Errorf("node %d at y = %g, want layer %g", c.v, y, c.top)
		}
		if pts[c.v].X != c.slot {
			t.Errorf("node %d at x = %g, want %g", c.v, pts[c.v].X, c.slot)
		}
	}
	dir := t.TempDir()
	in := eval.New(eval.Options{Registry: testRegistry(), Dirs: []string{dir}, BaseDir: dir})
	src := `
let x = draw(normal(0, 1), 200, seed: 1)
let y = draw(normal(0, 1), 200, seed: 2)
let g = pc(cbind(x, y, x + y + draw(normal(0, 1), 200, seed: 3)), test: "fisher_z")
plot(g, to: "g.png")
`
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "g.png")); err != nil || st.Size() < 1000 {
		t.Errorf("no picture: %v", err)
	}
}

// fci's marks are read from the edge types, and a PAG draws.
func TestPAGMarksAndPlot(t *testing.T) {
	for ty, want := range map[string]string{"o->": "o>", "<->": ">>", "o-o": "oo", "-->": "->", "--o": "-o"} {
		tail, head, ok := pagMarks(ty)
		if !ok || string([]byte{tail, head}) != want {
			t.Errorf("%s: %c %c %v", ty, tail, head, ok)
		}
	}
	for _, ty := range []string{"directed", "undirected", "o>", "x->"} {
		if _, _, ok := pagMarks(ty); ok {
			t.Errorf("%s read as marks", ty)
		}
	}
	dir := t.TempDir()
	in := eval.New(eval.Options{Registry: testRegistry(), Dirs: []string{dir}, BaseDir: dir})
	src := `
let a = draw(normal(0, 1), 500, seed: 1)
let l = draw(normal(0, 1), 500, seed: 3)
let d = draw(normal(0, 1), 500, seed: 2)
let g = fci(cbind(a, a + l + draw(normal(0, 1), 500, seed: 4), d + l + draw(normal(0, 1), 500, seed: 5), d), test: "fisher_z")
plot(g, to: "g.png")
`
	if _, err := in.Eval("t.kml", src); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "g.png")); err != nil || st.Size() < 1000 {
		t.Errorf("no picture: %v", err)
	}
}
