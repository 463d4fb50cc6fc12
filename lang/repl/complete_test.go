package repl

import (
	"io"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// complete returns the full candidates the completer offers at the end of
// line.
func complete(c completer, line string) []string {
	rs := []rune(line)
	suffixes, n := c.Do(rs, len(rs))
	prefix := string(rs[len(rs)-n:])
	var out []string
	for _, s := range suffixes {
		out = append(out, prefix+string(s))
	}
	return out
}

// TestCompleteNamedArgumentsFirst checks that inside a call Tab offers the
// call's named arguments before other names: sample(m, ch<Tab> gives
// chains: first, not chol.
func TestCompleteNamedArgumentsFirst(t *testing.T) {
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
	if _, err := in.Eval("t.kml", "fn f(alpha, beta) = alpha + beta"); err != nil {
		t.Fatal(err)
	}
	c := completer{&session{in: in}}
	cases := []struct {
		line  string
		first string
	}{
		{"sample(m, ch", "chains: "},
		{"let p = sample(m, ch", "chains: "},
		{"sample(m,ch", "chains: "},
		{"f(1, al", "alpha: "},
		{"sample(m, seed: f(1, b", "beta: "},
		{"print(ch", "chol"},      // print's only parameter is variadic
		{"sample(m, [ch", "chol"}, // inside a list, not at an argument
		{"sample(m, \"(\", ch", "chains: "},
		{"ch", "chol"},
	}
	for _, tc := range cases {
		got := complete(c, tc.line)
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("%q + Tab offers %q; want %q first", tc.line, got, tc.first)
		}
	}
	if got := complete(c, "sample(m, ch"); !contains(got, "chol") {
		t.Errorf("sample(m, ch + Tab offers %q; want chol too", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
