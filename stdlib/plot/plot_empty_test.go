package plot_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestPlotNonFiniteAndEmpty checks that plot warns, at its argument, of NaN
// and infinite values it leaves out, and refuses input with nothing to draw.
func TestPlotNonFiniteAndEmpty(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	if _, err := in.Eval("t.kml", "let x = [1, 0/0, 1/0, 3]\nplot(x, to: \"a.png\")\n"); err != nil {
		t.Fatal(err)
	}
	if want := "t.kml:2:6: warning: plot: 2 of 4 values are NaN or infinite"; !strings.Contains(out.String(), want) {
		t.Errorf("got %q, want a warning %q", out.String(), want)
	}
	for src, want := range map[string]string{
		`plot([], to: "b.png")`:         "t.kml:1:6: error: plot: nothing to plot: v is empty",
		`plot([0/0, 1/0], to: "c.png")`: "t.kml:1:6: error: plot: nothing to plot: every value of v is NaN or infinite",
	} {
		if msg := kmltest.RunIn(t, dir, src); !strings.Contains(msg, want) {
			t.Errorf("%s: got %q, want %q", src, msg, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "b.png")); err == nil {
		t.Errorf("plot([]) wrote a file")
	}
}
