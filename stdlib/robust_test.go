package stdlib_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

// oddValues are arguments a careless or unlucky script passes: empty,
// negative, huge, NaN and infinite values, and values of the wrong kind.
var oddValues = []string{"[]", "0", "-1", "2.5", "1e9", "[1, 2, 3]", "[[1, 2], [3, 4]]", "[[1]]",
	"\"s\"", "true", "{a: 1}", "normal(0, 1)", "rbf(1)", "1 / 0", "0 / 0", "[1, 0 / 0]", "m", "post"}

// TestNoInternalErrors calls every builtin with every combination of up to
// three odd arguments (about 140,000 calls), and applies every operator to
// every pair: each must give a result or a user-facing error, never an
// internal error (a Go panic caught at the call).
func TestNoInternalErrors(t *testing.T) {
	const maxArgs = 3
	in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	if _, err := in.Eval("prelude.kml", `
model m {
  a ~ normal(0, 1)
}
let post = sample(m, chains: 1, warmup: 20, draws: 20, seed: 1)
`); err != nil {
		t.Fatal(err)
	}
	try := func(src string) {
		if _, err := in.Eval("x.kml", src+"\n"); err != nil && strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s: %v", src, err)
		}
	}
	for _, name := range eval.Builtins.Names() {
		sig, _ := eval.Builtins.Lookup(name)
		var sweep func(args []string)
		sweep = func(args []string) {
			try(name + "(" + strings.Join(args, ", ") + ")")
			if len(args) < min(maxArgs, len(sig.Params)) {
				for _, v := range oddValues {
					sweep(append(args[:len(args):len(args)], v))
				}
			}
		}
		sweep(nil)
	}
	for _, x := range oddValues {
		try("-" + x)
		try("!" + x)
		try(x + ".a")
		try("if " + x + " then 1 else 2")
		for _, y := range oddValues {
			for _, op := range []string{"+", "-", "*", "/", "%", "^", "@", "==", "<", "&&", "||"} {
				try(x + " " + op + " " + y)
			}
			try(x + "[" + y + "]")
			try(x + "[" + y + ", 1]")
			try(x + "[1:" + y + "]")
		}
	}
}
