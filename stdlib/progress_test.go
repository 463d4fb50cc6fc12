package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestProgressLines: with Options.Progress and a buffer standing for the
// terminal, a kernel test and tune draw "NAME: what i/N" lines and erase
// them; without Progress (not a terminal, or --json) nothing is drawn.
func TestProgressLines(t *testing.T) {
	src := `let x = draw(normal(0, 1), 60, seed: 1)
let y = draw(normal(0.5, 1), 60, seed: 2)
let r = mmd_test(x, y, rbf(1), permutations: 2000)
fn k(l) = rbf(l)
let t = tune(x, 20, kernel: k, ell: logspace(-1, 0.5, 30), method: "kde", score: "logpdf", window: [-4, 4], seed: 4)
`
	for _, on := range []bool{true, false} {
		var term, stderr bytes.Buffer
		in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &stderr, Progress: on, ProgressTo: &term})
		if r := in.Progress(); r != nil {
			r.Delay = 0
		}
		if _, err := in.Eval("p.kml", src); err != nil {
			t.Fatal(err)
		}
		got := term.String()
		if !on {
			if got != "" || stderr.Len() != 0 {
				t.Errorf("progress drawn without Progress: %q %q", got, stderr.String())
			}
			continue
		}
		for _, want := range []string{"mmd_test: permutations ", "/2000 (", "tune: candidates ", "/30 (", " left"} {
			if !strings.Contains(got, want) {
				t.Errorf("no %q in the progress output %q", want, got)
			}
		}
		if !strings.HasSuffix(got, "\r\033[K") {
			t.Errorf("the last line is not erased: %q", got)
		}
		if n := strings.Count(got, "\r\033[K"); n > 200 {
			t.Errorf("%d redraws for two short computations: not throttled", n)
		}
	}
}
