package eval

import (
	"context"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
)

// TestInterruptedAtTheCall: a builtin whose inner evaluation (a model's
// statement, a function's body) notices the interrupt reports
// "NAME: interrupted" at its own call, not the bare "interrupted" at the
// inner statement (issue 37: profile was reported at its model's prior
// line); a nested builtin's "NAME: interrupted" further in keeps its place.
func TestInterruptedAtTheCall(t *testing.T) {
	inner := ast.Pos{File: "t.kml", Line: 9, Col: 3}
	r := NewRegistry()
	r.Register("walks()", "", func(a *Args) (Value, error) {
		// What a statement evaluated inside the builtin returns once the
		// run's context is done.
		return nil, Interrupted(inner, context.Canceled)
	})
	r.Register("nests()", "", func(a *Args) (Value, error) {
		return nil, &ast.Error{Pos: inner, Msg: "chol: interrupted", Cause: context.Canceled}
	})
	for _, c := range []struct{ src, want string }{
		{"let a = 1\nlet x = walks()", "t.kml:2:9: error: walks: interrupted"},
		{"let a = 1\nlet x = nests()", "t.kml:9:3: error: chol: interrupted"},
	} {
		in := New(Options{Registry: r})
		_, err := in.Eval("t.kml", c.src)
		if err == nil {
			t.Fatalf("%q: no error", c.src)
		}
		if got := err.Error(); got != c.want {
			t.Errorf("%q: error %q, want %q", c.src, got, c.want)
		}
	}
}
