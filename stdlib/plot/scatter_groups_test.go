package plot_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestScatterStringGroups: color: may name the groups with strings, which
// the legend shows in order of first appearance; numbers still give groups
// in increasing order, named by their values; anything else is an error.
func TestScatterStringGroups(t *testing.T) {
	dir := t.TempDir()
	src := `let g = [2, 1, 2, 1, 2, 1]
let xy = cbind([1, 2, 3, 4, 5, 6], [2, 1, 4, 3, 6, 5])
plot(xy, color: ifelse(g == 1, "treated", "control"), to: "s.svg")
plot(xy, color: g * 10, to: "n.svg")
`
	if msg := kmltest.RunIn(t, dir, src); msg != "" {
		t.Fatal(msg)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	s := read("s.svg")
	c, tr := strings.Index(s, ">control<"), strings.Index(s, ">treated<")
	if c < 0 || tr < 0 || c > tr {
		t.Errorf("string groups: legend control at %d, treated at %d; want both, control first", c, tr)
	}
	if n := read("n.svg"); !strings.Contains(n, ">10<") || !strings.Contains(n, ">20<") {
		t.Error("number groups: legend without 10 and 20")
	}
	for _, c := range []struct{ src, want string }{
		{`plot(cbind([1, 2], [3, 4]), color: ["a", 1], to: "x.svg")`, "color must give a label per row (2), numbers or strings"},
		{`plot(cbind([1, 2], [3, 4]), color: ["a"], to: "x.svg")`, "color must give a label per row (2)"},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.src, got, c.want)
		}
	}
}
