package eval_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

// A call the checker cannot bind (through a variable or a parameter, or to
// a fn redefined since) is bound at run time, with the same errors.
func TestCallsThroughValuesBindAtRunTime(t *testing.T) {
	in := eval.New(eval.Options{})
	before := eval.RuntimeBinds()
	v, err := in.Eval("t.kml", `let f = exp
fn apply(g, x) = g(x)
apply(f, 0) + f(x: 0)`)
	if err != nil || v.String() != "2" {
		t.Fatalf("got %v, %v", v, err)
	}
	if eval.RuntimeBinds() == before {
		t.Error("calls through values were not bound at run time")
	}
	if _, err := in.Eval("t.kml", `f(y: 0)`); err == nil || err.Error() != `t.kml:1:3: error: exp has no argument "y"; did you mean "x"?` {
		t.Errorf("got %v", err)
	}
	// A fn redefined with another signature after a caller was checked.
	for _, src := range []string{"fn h(a) = a", "fn k(x) = h(x)"} {
		if _, err := in.Eval("t.kml", src); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Eval("t.kml", "fn h(a, b) = a + b"); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval("t.kml", "k(1)"); err == nil || err.Error() != `t.kml:1:12: error: missing argument "b" in call to h(a, b)` {
		t.Errorf("got %v", err)
	}
}
