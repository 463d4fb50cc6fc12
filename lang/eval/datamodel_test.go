package eval

import (
	"errors"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
)

// TestModelFamilyValues: a model with data arguments is a value that is
// called with its data, by name or by position, also through a fn or a
// variable; each call is a model of its own, with vector parameters sized
// by that call's data.
func TestModelFamilyValues(t *testing.T) {
	withoutInstanceCheck(t)
	cases := []struct{ src, want string }{
		{"model m(k, x) {\n  w[k] ~ twice(1)\n}\nm", "= model m(k, x), which takes data: call it with its data, m(k: ..., x: ...)"},
		{"model m(k, x) {\n  w[k] ~ twice(1)\n}\nm(k: 3, x: [1, 2])", "= model m for data k: number 3, x: vector[2], w[3] (parameters: w[3]; observations: 0)"},
		{"model m(k, x) {\n  w[k] ~ twice(1)\n}\nm(2, [[1, 2], [3, 4]])", "= model m for data k: number 2, x: matrix[2×2], w[2] (parameters: w[2]; observations: 0)"},
		{"model m(k) {\n  w[k] ~ twice(1)\n}\nfn make(n) = m(n + 1)\nmake(4)", "= model m for data k: number 5, w[5] (parameters: w[5]; observations: 0)"},
		{"model m(k) {\n  w[k] ~ twice(1)\n}\nlet f = m\nf(k: 1)", "= model m for data k: number 1, w[1] (parameters: w[1]; observations: 0)"},
	}
	for _, c := range cases {
		out, err := run(t, c.src)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if got := strings.TrimSpace(out); got != c.want {
			t.Errorf("%q:\n got  %s\n want %s", c.src, got, c.want)
		}
	}
}

// TestModelFamilyErrors: each error is placed at the argument that does
// not fit, or at the call for a missing or unknown argument.
func TestModelFamilyErrors(t *testing.T) {
	withoutInstanceCheck(t)
	decl := "model m(k, x) {\n  w[k] ~ twice(1)\n}\n"
	cases := []struct{ src, want string }{
		{decl + "let f = m\nf(k: 2)", "t.kml:5:2: error: missing argument \"x\" in call to m(k, x)"},
		{decl + "let f = m\nf(k: 2, x: 1, z: 3)", "t.kml:5:15: error: m has no argument \"z\""},
		{decl + "m(k: 0, x: 1)", "t.kml:4:6: error: m: k (number 0) does not fit the model: the size of w[...] must be a whole number ≥ 1, got 0"},
		{decl + "m(k: 2.5, x: 1)", "t.kml:4:6: error: m: k (number 2.5) does not fit the model: the size of w[...] must be a whole number ≥ 1, got 2.5"},
		{decl + "m(k: 2, x: m)", "t.kml:4:12: error: m: x must be data, got model m(k, x) without its data"},
		{decl + "fn g(a) = m(k: a, x: 1)\ng(-1)", "t.kml:4:16: error: m: k (number -1) does not fit the model"},
		{"model p {\n  w[2] ~ twice(1)\n}\np(1)", "t.kml:4:2: error: model p takes no data: it binds its data where it is declared; declare it `model p(x, ...) { ... }` to call it with data"},
		{decl + "let a = m(1, 2)\na(1, 2)", "t.kml:5:2: error: model m has its data already; call m(k, x) itself with other data"},
	}
	for _, c := range cases {
		_, err := run(t, c.src)
		if err == nil {
			t.Errorf("%q: no error", c.src)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.src, err, c.want)
		}
	}
	// The note says where in the model the data did not fit.
	_, err := run(t, decl+"m(k: 0, x: 1)")
	var ae *ast.Error
	if !errors.As(err, &ae) || len(ae.NoteLines()) == 0 || ae.NoteLines()[0] != "in model m at t.kml:2:5" {
		t.Errorf("no note of the model's position: %v", err)
	}
}

// withoutInstanceCheck turns off lang/model's check of an instance at the
// call (the test binary links lang/model through stdlib) for the tests of
// this package's machinery, whose priors are stand-ins (twice) that only
// a compile would refuse; lang/model tests the check.
func withoutInstanceCheck(t *testing.T) {
	saved := instanceCheck
	instanceCheck = nil
	t.Cleanup(func() { instanceCheck = saved })
}
