package assist

import (
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/check"
)

func TestCallee(t *testing.T) {
	cases := map[string]string{
		"sample(m, ":            "sample",
		"f(1,\n  ":              "f",
		"f(\"(\", ":             "f",
		"f(x # (not a call\n, ": "f",
		"f([1, ":                "",
		"f(1) + ":               "",
		"let x = g(h(1), ":      "g",
		"let x = g(h(1), y + ":  "",
		"":                      "",
	}
	for before, want := range cases {
		if got := Callee([]rune(before)); got != want {
			t.Errorf("Callee(%q) = %q, want %q", before, got, want)
		}
	}
}

func TestComplete(t *testing.T) {
	sig := func(name string) *check.Signature {
		if name == "f" {
			return &check.Signature{Name: "f", Params: []check.Param{{Name: "beta"}, {Name: "alpha"}, {Name: "rest"}}, Variadic: "rest"}
		}
		return nil
	}
	prefix, got := Complete([]rune("f(1, a"), []string{"f", "abs", "a"}, sig)
	if prefix != "a" || strings.Join(got, "|") != "alpha: |abs" {
		t.Errorf("Complete = %q, %q; want a, [alpha: abs]", prefix, got)
	}
}

func TestIndent(t *testing.T) {
	got := Indent(strings.Fields("one two three four"), 10)
	if got != "  one two\n  three four" {
		t.Errorf("Indent = %q", got)
	}
}
