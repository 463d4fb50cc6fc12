package eval_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

const mb = 1 << 20

// budgetInterp is an interpreter with a budget of the given megabytes.
func budgetInterp(megabytes int64) *eval.Interpreter {
	var out bytes.Buffer
	return eval.New(eval.Options{Stdout: &out, Stderr: &out, MaxMemory: megabytes * mb})
}

// TestLedgerCountsBindings checks the count of live values against the
// bytes bound, by hand: vectors and matrices at 8 bytes a number, a block
// two names share counted once, a record counting its fields, a REPL input
// that binds a name again releasing the old value, and Define doing the
// same.
func TestLedgerCountsBindings(t *testing.T) {
	in := budgetInterp(100)
	steps := []struct {
		src  string
		live int64
	}{
		{"let a = rep(1, 1e6)", 8e6},
		{"let b = a", 8e6},                                // the same numbers
		{"let m = [[1, 2], [3, 4]]\nlet s = 3", 8e6 + 32}, // a number counts nothing
		{"let r = {x: a, y: rep(0, 1000)}", 8e6 + 32 + 8000},
		{"let a = 1", 8e6 + 32 + 8000},                   // b and r still hold a's numbers
		{"let b = 2\nlet r = 3", 32},                     // now nothing does
		{"fn f(v) = sum(v)\nlet t = f(rep(1, 1e6))", 32}, // a fn's argument lives for the call
	}
	for _, s := range steps {
		if _, err := in.Eval("<input>", s.src); err != nil {
			t.Fatalf("%q: %v", s.src, err)
		}
		if got := in.MemoryLive(); got != s.live {
			t.Errorf("after %q: %d bytes live, want %d", s.src, got, s.live)
		}
	}
	if err := in.Define("m", &eval.Vec{Data: make([]float64, 500)}); err != nil {
		t.Fatal(err)
	}
	if got := in.MemoryLive(); got != 4000 {
		t.Errorf("after Define over m: %d bytes live, want 4000", got)
	}
}

// TestBudgetOverLiveValues checks that the budget bounds the values alive
// together: four vectors of 76 MB each fit a budget of 100 MB alone, but the
// second is refused beside the first, naming both sizes and the value that
// holds the memory; a temporary operand counts while the operator's result
// is made; a REPL input that releases a value makes room again.
func TestBudgetOverLiveValues(t *testing.T) {
	in := budgetInterp(100)
	if _, err := in.Eval("a.kml", "let a = rep(1, 1e7)"); err != nil {
		t.Fatal(err)
	}
	_, err := in.Eval("b.kml", "let b = rep(2, 1e7)")
	if err == nil {
		t.Fatal("a second vector of 76 MB under a budget of 100 MB was allowed")
	}
	for _, want := range []string{"b.kml:1:9", "rep: the result would be 10000000 numbers (76.3 MB), with 76.3 MB held by live values (a 76.3 MB)", "memory budget of 100 MB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	// Within one input the old a is still bound; after it, a is released.
	if _, err := in.Eval("c.kml", "let a = 0"); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Eval("c.kml", "let b = rep(2, 1e7)"); err != nil {
		t.Fatalf("after a is released: %v", err)
	}

	// linspace's 45.8 MB result is in flight while * makes another.
	in = budgetInterp(80)
	_, err = in.Eval("d.kml", "let x = linspace(0, 1, 6e6) * 2")
	if err == nil || !strings.Contains(err.Error(), "the result of * would be 6000000 numbers (45.8 MB), with 45.8 MB held by live values (45.8 MB in the operands)") {
		t.Errorf("a temporary operand is not counted: %v", err)
	}
	// A fn's argument is live while its body runs.
	_, err = in.Eval("e.kml", "fn twice(v) = v + v\nlet y = twice(rep(1, 6e6))")
	if err == nil || !strings.Contains(err.Error(), "45.8 MB in use by the expression") {
		t.Errorf("a fn's argument is not counted: %v", err)
	}
	if live := in.MemoryLive(); live != 0 {
		t.Errorf("%d bytes live after the failed statements, want 0", live)
	}
}

// TestBudgetChecksBuiltinResults checks the net under builtins that check
// nothing before they allocate: a result that, beside the live values, does
// not fit is refused when the builtin returns (here exp's).
func TestBudgetChecksBuiltinResults(t *testing.T) {
	in := budgetInterp(20)
	_, err := in.Eval("a.kml", "let a = rep(1, 1.5e6)\nlet c = exp(a)")
	if err == nil || !strings.Contains(err.Error(), "a.kml:2:9: error: exp: the result would be 11.4 MB, with 11.4 MB held by live values (a 11.4 MB)") {
		t.Errorf("exp's result beside a: %v", err)
	}
}
