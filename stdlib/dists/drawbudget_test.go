package dists_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestDrawBudget checks that draw refuses, before allocating, draws that
// would not fit in the memory budget beside the live values, for each
// shape of result: a vector of scalar draws, vectorised draws, a matrix
// (dirichlet), a list of matrices (lkj_corr_cholesky), categories.
func TestDrawBudget(t *testing.T) {
	for src, want := range map[string]string{
		`let x = draw(normal(0, 1), 1e7)`:                      "draw: the draws would be 10000000 numbers (76.3 MB), more than the memory budget of 8 MB",
		`let x = draw(normal([0, 1], 1), 2e6)`:                 "draw: the draws would be 2000000 numbers (15.3 MB)",
		`let x = draw(dirichlet([1, 1, 1, 1]), 1e6)`:           "draw: the draws would be 1000000×4 numbers (30.5 MB)",
		`let x = draw(lkj_corr_cholesky(2, K: 10), 2e4)`:       "draw: the draws would be 20000×100 numbers (15.3 MB)",
		`let x = draw(categorical_logit([0, 1]), 2e6)`:         "draw: the draws would be 2000000 numbers (15.3 MB)",
		"let a = rep(1, 6e5)\nlet x = draw(normal(0, 1), 6e5)": "with 4.58 MB held by live values (a 4.58 MB)",
	} {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: 8 << 20})
		_, err := in.Eval("t.kml", src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// registerInterruptThen adds interrupt_then(n) to the builtins: it
// interrupts the run and returns n, so that the draw it is an argument of
// starts with its run already interrupted (the call looked at the context
// before evaluating its arguments) and only draw's own loop can notice.
var registerInterruptThen = sync.OnceFunc(func() {
	eval.Builtins.Register("interrupt_then(n)", "For tests: interrupts the run, returns n.", func(a *eval.Args) (eval.Value, error) {
		a.Th.Interp().Interrupt()
		return a.Value("n"), nil
	})
})

// TestDrawInterrupted checks that a long draw looks at its run's context
// as it goes and stops with draw's own error when the run is interrupted.
func TestDrawInterrupted(t *testing.T) {
	registerInterruptThen()
	for _, src := range []string{`let x = draw(normal(0, 1), interrupt_then(1e7))`, `let x = draw(normal([0, 1], 1), interrupt_then(1e7))`} {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
		_, err := in.Eval("t.kml", src)
		if err == nil || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "draw: interrupted") {
			t.Errorf("%s: got %v, want draw: interrupted", src, err)
		}
	}
}
