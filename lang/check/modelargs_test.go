package check

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
)

// TestModelDataArguments: inside the body a data argument is data (a `~`
// on it is an observation, a size may use it), and the model's name is
// called with the arguments' signature.
func TestModelDataArguments(t *testing.T) {
	f, err := checkSrc(t, "model m(x, y) {\n  w[mean(x)] ~ normal(0, 1)\n  y ~ normal(w, 1)\n}\nlet a = m(x: [1], y: [2])\nlet b = m([1], [2])", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Stmts[0].(*ast.Model)
	if k := m.Body[0].(*ast.Tilde).Kind; k != ast.VecParam {
		t.Errorf("w is a %v", k)
	}
	if k := m.Body[1].(*ast.Tilde).Kind; k != ast.Observe {
		t.Errorf("y ~ ... is a %v, want an observation", k)
	}
	call := f.Stmts[1].(*ast.Let).Value.(*ast.Call)
	if b, ok := call.Binding.(*CallBinding); !ok || len(b.Slots) != 2 {
		t.Errorf("m(x: ..., y: ...) not bound: %#v", call.Binding)
	}
}

func TestModelDataArgumentErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"model m(x) {\n  a ~ normal(z, 1)\n  x ~ normal(a, 1)\n}", "2:14: error: undefined: z"},
		{"model m(x) {\n  a ~ normal(0, 1)\n}\nlet b = m(y: 1)", "4:10: error: missing argument \"x\" in call to m(x)"},
		{"model m(x) {\n  a ~ normal(0, 1)\n}\nlet b = m(x: 1, z: 2)", "4:17: error: m has no argument \"z\""},
		{"model m(x) {\n  x = 1\n}", "2:3: error: \"x\" is already bound outside the model"},
		{"let x = 1\nmodel m(x) {\n  a ~ normal(x, 1)\n}\nlet y = x", ""},
	}
	for _, c := range cases {
		_, err := checkSrc(t, c.src, nil)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "t.kml:"+c.want) {
			t.Errorf("%q:\n got  %v\n want t.kml:%s", c.src, err, c.want)
		}
	}
}
