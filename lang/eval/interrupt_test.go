package eval_test

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kml-lang/kml/internal/stoptest"
	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
)

// startEval runs src on a new interpreter and returns it and a channel
// that delivers the evaluation's error.
func startEval(src string) (*eval.Interpreter, <-chan error) {
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
	done := make(chan error, 1)
	go func() {
		_, err := in.Eval("<test>", src)
		done <- err
	}()
	return in, done
}

// Both interpreters build B = n·I + xxᵀ with x = (1..n)/n at n = 4000
// and factor it (a few seconds of CPU each; 6000, until issue 37, made the
// test take minutes at load 40); begun together, they reach their
// factorisations together. The one
// to stop factors twice, so that on a crowded machine it cannot be done
// before the other has finished building B (which made WaitDense wait in
// vain, at load 11); the one kept factors three times, so that it is
// still factoring when the other is interrupted however the two are
// scheduled, and its factor L is checked against B through L·Lᵀ.
const (
	keepN      = 4000
	build      = "let x = seq(1, 4000) / 4000\nlet B = eye(4000) * 4000 + outer(x, x)\n"
	cholToStop = build + "let L0 = chol(B)\nlet L = chol(B)\n"
	cholToKeep = build + "let L1 = chol(B)\nlet L2 = chol(B)\nlet L = chol(B)\n"
)

// TestInterruptOneOfTwo: two interpreters in one process each run a large
// chol; interrupting one stops its factorisation within half a second
// (its error is "chol: interrupted"), while the other's factorisation,
// running at that moment, goes on and comes out right. The stop is judged
// by the wall time a core of its own would have taken (internal/stoptest's
// Probe: wall × the share of a core a runnable thread got), so a crowded
// machine needs no retry. (The process's processor time would count the
// other factorisation, which runs on.)
func TestInterruptOneOfTwo(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three factorisations of order 4000 (seconds)")
	}
	const allowed = 500 * time.Millisecond
	took, share := interruptOneOfTwo(t, true)
	core := time.Duration(float64(took) * share)
	t.Logf("stopped %v after Interrupt (a runnable thread got %.2f of a core: %v at a full core's speed)", took, share, core)
	if took > allowed && core > allowed {
		t.Fatalf("chol stopped %v after Interrupt (%v at a full core's speed), want within %v", took, core, allowed)
	}
}

// interruptOneOfTwo runs the two interpreters once and returns how long
// the interrupted one took to stop, and the share of a core a thread got
// meanwhile when probe is set (1 otherwise).
func interruptOneOfTwo(t *testing.T, probe bool) (time.Duration, float64) {
	keep, keepDone := startEval(cholToKeep)
	stop, stopDone := startEval(cholToStop)
	defer func() { // a failed test leaves no factorisation running
		keep.Interrupt()
		stop.Interrupt()
	}()
	// Both inside the level-3 BLAS: the interrupt lands in a
	// factorisation, past chol's symmetry check (which checks the
	// context).
	if !stoptest.WaitDense(2, 5*time.Minute) {
		t.Fatal("the two chol did not both reach their factorisation within 5 minutes")
	}
	select {
	case err := <-keepDone:
		t.Fatalf("the first chol ended (%v) before the second was interrupted", err)
	default:
	}
	var p *stoptest.Probe
	if probe {
		p = stoptest.Start()
	}
	start := time.Now()
	stop.Interrupt()
	var err error
	select {
	case err = <-stopDone:
	case <-time.After(2 * time.Minute):
		t.Fatal("the interrupted chol did not stop within 2 minutes")
	}
	took := time.Since(start)
	share := 1.0
	if p != nil {
		share = p.Stop()
	}
	if err == nil || !strings.Contains(err.Error(), "chol: interrupted") || !errors.Is(err, context.Canceled) {
		t.Fatalf("the interrupted interpreter: %v, want chol: interrupted", err)
	}
	select {
	case err := <-keepDone:
		if err != nil {
			t.Fatalf("the other interpreter: %v", err)
		}
	case <-time.After(5 * time.Minute):
		t.Fatal("the other interpreter's chol did not end within 5 minutes")
	}
	checkFactor(t, keep)

	// The interrupted interpreter is usable, and its next chol runs.
	if v, err := stop.Eval("<test 2>", "chol(eye(3) * 4)"); err != nil || v.(*eval.Mat).M.At(2, 2) != 2 {
		t.Errorf("after the interrupt: chol(4I) = %v, %v", v, err)
	}
	return took, share
}

// checkFactor checks L·Lᵀ = B at a few entries.
func checkFactor(t *testing.T, in *eval.Interpreter) {
	t.Helper()
	lv, _ := in.Lookup("L")
	bv, _ := in.Lookup("B")
	l, ok1 := lv.(*eval.Mat)
	b, ok2 := bv.(*eval.Mat)
	if !ok1 || !ok2 {
		t.Fatalf("L = %T, B = %T after the uninterrupted chol", lv, bv)
	}
	n, _ := l.M.Dims()
	if n != keepN {
		t.Fatalf("L is %d×%d, want %d×%d", n, n, keepN, keepN)
	}
	for _, ij := range [][2]int{{0, 0}, {1, 0}, {n / 2, 7}, {n - 1, n - 1}, {n - 1, n / 3}} {
		i, j := ij[0], ij[1]
		var s float64
		for k := 0; k <= j; k++ {
			s += l.M.At(i, k) * l.M.At(j, k)
		}
		if want := b.M.At(i, j); math.Abs(s-want) > 1e-9*float64(n) {
			t.Errorf("(L·Lᵀ)[%d, %d] = %v, B = %v", i, j, s, want)
		}
	}
	if got, want := l.M.At(0, 0), math.Sqrt(keepN+1.0/(keepN*keepN)); math.Abs(got-want) > 1e-12*want {
		t.Errorf("L[0, 0] = %v, √B[0, 0] = %v", got, want)
	}
}
