package grammar

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
)

// TestModelDataArguments parses `model m(x, y) { ... }`: the arguments in
// order with their positions, the body a block (newlines separate its
// statements), and `model m { ... }` still without arguments.
func TestModelDataArguments(t *testing.T) {
	src := "model m(x,\n  y) {\n  w[cols(x)] ~ normal(0, 1)\n  y ~ normal(x @ w, 1)\n}\nmodel n {\n  a ~ normal(0, 1)\n}"
	f, err := Parse("t.kml", src)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Stmts[0].(*ast.Model)
	if len(m.Params) != 2 || m.Params[0].Name != "x" || m.Params[1].Name != "y" {
		t.Fatalf("params %v", m.Params)
	}
	if p := m.Params[1].At; p.Line != 2 || p.Col != 3 {
		t.Errorf("y at %v, want 2:3", p)
	}
	if len(m.Body) != 2 {
		t.Errorf("body has %d statements, want 2", len(m.Body))
	}
	if n := f.Stmts[1].(*ast.Model); n.Params != nil {
		t.Errorf("model n has params %v", n.Params)
	}
}

func TestModelDataArgumentErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"model m() {\n  a ~ normal(0, 1)\n}", "t.kml:1:8: error: a model without data arguments is written `model m { ... }`, without `()`"},
		{"model m(x, x) {\n  a ~ normal(0, 1)\n}", "t.kml:1:12: error: data argument \"x\" is named twice"},
		{"model m(x, 1) {\n}", "t.kml:1:12: error: unexpected number 1"},
	}
	for _, c := range cases {
		_, err := Parse("t.kml", c.src)
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if got := err.Error(); !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got  %s\n want %s", c.src, got, c.want)
		}
	}
}
