package stdlib_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

// oddValues are arguments a careless or unlucky script passes: empty,
// negative, huge, NaN and infinite values, and values of the wrong kind.
var oddValues = []string{"[]", "0", "-1", "2.5", "1e9", "[1, 2, 3]", "[[1, 2], [3, 4]]", "[[1]]",
	"\"s\"", "true", "{a: 1}", "normal(0, 1)", "rbf(1)", "1 / 0", "0 / 0", "[1, 0 / 0]", "m", "post"}

// TestNoInternalErrors calls every builtin with every combination of up to
// three odd arguments (about 140,000 calls with KML_LONG=1 or KML_FULL=1,
// an eighth of the three-argument ones otherwise), and applies every operator to
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
	// Three arguments are 95% of the calls (20 s of CPU): without
	// KML_LONG or KML_FULL (CI) an eighth of them, those whose indices
	// into oddValues sum to a multiple of 8, so that every pair of values
	// still meets at every two positions (with 2 or 3 values at the
	// third).
	long := os.Getenv("KML_LONG") != "" || fulltest.Enabled()
	for _, name := range eval.Builtins.Names() {
		sig, _ := eval.Builtins.Lookup(name)
		var sweep func(args []string, sum int)
		sweep = func(args []string, sum int) {
			if len(args) == 3 && !long && sum%8 != 0 {
				return
			}
			try(name + "(" + strings.Join(args, ", ") + ")")
			if len(args) < min(maxArgs, len(sig.Params)) {
				for i, v := range oddValues {
					sweep(append(args[:len(args):len(args)], v), sum+i)
				}
			}
		}
		sweep(nil, 0)
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

// TestNoInternalErrorsInModels builds models from odd pieces (priors with
// bad parameters, vector parameters of bad sizes, observations of the wrong
// shape or support) and fits and queries each: a user-facing error or a
// result, never an internal error.
func TestNoInternalErrorsInModels(t *testing.T) {
	dists := []string{"normal(0, 1)", "normal(0, -1)", "gamma(0, 0)", "gamma(2, 2)", "beta(1, 1)", "uniform(2, 1)", "uniform(0, 1)", "half_cauchy(1)", "student_t(1, 0, 1)", "exponential(0)", "lognormal(0, 1)", "inv_gamma(2, 1)", "mixture([0.5, 0.5], [normal(0, 1), normal(3, 1)])", "mixture([1], [])", "bernoulli_logit(0)", "cauchy(0, 1)", "laplace(0, 1)", "half_normal(1)", "normal(0 / 0, 1)", "normal([0, 1], 1)"}
	heads := []string{"a", "a[3]", "a[0]", "a[-1]", "a[2.5]", "a[1e9]"}
	obs := []string{"", "x ~ normal(a, 1)", "x ~ normal(a, s)", "y ~ normal(a, 1)", "x ~ gamma(a, 1)", "x ~ bernoulli_logit(a)", "w = a * 2\n x ~ normal(w, 1)", "x ~ normal(exp(a), sqrt(a))", "x ~ normal(a @ [1], 1)", "x ~ normal(a[1], 1)", "x ~ normal(sum(a), 1)", "mat ~ normal(a, 1)"}
	for _, h := range heads {
		for _, d := range dists {
			for _, o := range obs {
				model := "model q {\n " + h + " ~ " + d + "\n s ~ gamma(2, 2)\n " + o + "\n}\n"
				in := eval.New(eval.Options{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
				in.Eval("p.kml", "let x = draw(normal(0, 1), 20, seed: 1)\nlet y = [1, 0, 1]\nlet mat = [[1, 2], [3, 4]]\n")
				if _, err := in.Eval("m.kml", model); err != nil {
					if strings.Contains(err.Error(), "internal error") {
						t.Errorf("%s: %v", model, err)
					}
					continue
				}
				for _, st := range []string{"logp(q, {a: 1, s: 1})", "loglik(q, {a: 1, s: 1})", "let p = sample(q, chains: 2, warmup: 30, draws: 30, seed: 1)", "summary(p)", "p.a", "draws(p, \"s\")", "optimize(q)", "optimize(q, objective: \"ml\")", "optimize(q, fix: {s: 1})", "profile(q, s: [0.5, 1])", "sample(q, chains: 1, warmup: 30, draws: 30, init: \"uniform\")", "sample(q, chains: 1, warmup: 30, draws: 30, metric: \"dense\")"} {
					if _, err := in.Eval("x.kml", st+"\n"); err != nil && strings.Contains(err.Error(), "internal error") {
						t.Errorf("%s%s: %v", model, st, err)
					}
				}
			}
		}
	}
}
