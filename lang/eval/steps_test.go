package eval

import (
	"bytes"
	"strings"
	"testing"
)

// TestMaxSteps checks the step budget: a program over it fails at the call
// that goes over, with the budget named; one under it runs; the count starts
// again at each evaluation; calls through map count each element.
func TestMaxSteps(t *testing.T) {
	var out bytes.Buffer
	in := New(Options{Stdout: &out, Stderr: &out, MaxSteps: 200})
	if _, err := in.Eval("a.kml", "fn fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)\nprint(fib(8))\n"); err != nil {
		t.Fatalf("fib(8), 67 calls: %v", err)
	}
	// The count starts again: fib(8) twice more, each under the budget.
	for i := 0; i < 2; i++ {
		if _, err := in.Eval("b.kml", "print(fib(8))\n"); err != nil {
			t.Fatalf("fib(8) again: %v", err)
		}
	}
	_, err := in.Eval("c.kml", "let z = fib(12)\n")
	if err == nil || !strings.Contains(err.Error(), "more than 200 calls") {
		t.Fatalf("fib(12), 465 calls: %v, want the step budget's error", err)
	}
	var msg bytes.Buffer
	in.Sources().Print(&msg, err)
	if !strings.Contains(msg.String(), "a.kml:1:") {
		t.Errorf("the error is not at a call in fib's body:\n%s", msg.String())
	}
	// Each element of a map is a call.
	if _, err := in.Eval("d.kml", "fn dbl(x) = 2 * x\nlet v = map(seq(1, 150), dbl)\n"); err != nil {
		t.Errorf("map over 150 elements: %v", err)
	}
	if _, err := in.Eval("e.kml", "let w = map(seq(1, 250), dbl)\n"); err == nil {
		t.Error("map over 250 elements: no error under a budget of 200")
	}
	// No budget: no bound.
	free := New(Options{Stdout: &out, Stderr: &out})
	if _, err := free.Eval("f.kml", "fn fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)\nlet z = fib(12)\n"); err != nil {
		t.Errorf("without a budget: %v", err)
	}
}
