// Package interrupt is the stop that cuts a dense linear algebra operation
// short when one run of an interpreter is interrupted, and only that run.
//
// A run is cancelled through its context, and every loop KML writes checks
// the context. A single large factorisation cannot: mat.Cholesky, LU and
// inverses run inside gonum, which calls the level-3 BLAS installed as a
// process-wide value (blas64.Use) with no context argument, and at n = 6000
// a Cholesky takes seconds and an inverse tens of seconds. So the kernels
// ask this package instead: every level-3 BLAS call (runtime/internal/blas3,
// between blocked panels) and every kernel matrix (runtime/kernels, before
// each block of rows) calls Check, which panics with Stop on the goroutine
// that called it when that goroutine's run was interrupted; blas3's worker
// goroutines only return early (Raised), so a panic never starts on a
// goroutine nobody recovers. lang/eval recovers Stop at the builtin call (or
// the statement) and reports the positioned "NAME: interrupted", the same
// error every cancelled builtin reports.
//
// # One token per run
//
// Several interpreters may run in one process (a Go program embedding KML,
// tests), so the stop is not a process-wide flag: each run holds a Token
// (lang/eval begins one per evaluation, a new generation each time), and
// raising it stops the dense work of that run only. A Token is bound to
// goroutines, because that is all a kernel called from gonum has: Begin
// binds the calling goroutine, and every goroutine started from it later
// (blas3's workers, runtime/internal/par's, a sampler's chains, and any
// other, in KML or in a library) inherits the binding at its go statement.
//
// The binding is the goroutine's profiler labels (runtime/pprof), which the
// Go runtime copies to each new goroutine: no spawn site has to pass
// anything on, and none can be forgotten. Begin sets a label set of the
// token's own (kml-run=N, also visible in CPU profiles) with
// pprof.SetGoroutineLabels; Check reads the calling goroutine's label
// pointer and looks its token up. Reading it needs the runtime's
// runtime_getProfLabel, reached by linkname (labels.go): runtime/pprof has
// no public getter, and the Go team keeps that symbol's signature for
// programs that read it (go.dev/issue/67401). The alternatives were worse: a
// goroutine id parsed from runtime.Stack needs every spawn site in the
// runtime to copy the parent's binding by hand, and a context cannot reach
// the kernels at all.
//
// The fast path costs what the process-wide flag cost: Check first loads a
// process-wide count of raised tokens, and only when some token is raised
// (an interrupted run unwinding, a few milliseconds) does it look at the
// goroutine's labels and the table of tokens.
//
// A goroutine bound to no live token (one a Go program runs outside any
// interpreter, one that outlives its run, or one whose labels a library
// replaced with pprof.Do) is never stopped. That is safe: the stop is only a
// shortcut. An interrupted run also has its context cancelled, which every
// KML loop checks, so the worst an unbound dense call can do is run to its
// end; it can never stop another interpreter's work.
package interrupt

import (
	"context"
	"errors"
	"runtime/pprof"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

type stop struct{}

func (stop) Error() string { return "interrupted" }

// Stop is the value the dense kernels panic with once their run's token
// was raised.
var Stop error = stop{}

// A Token is the dense stop of one run: raised, it stops the kernels on
// the goroutines bound to it and on no others.
type Token struct {
	labels unsafe.Pointer  // the bound goroutines' label set: the key in tokens
	parent context.Context // whose labels End restores
	raised bool            // guarded by mu
	ended  bool            // guarded by mu
}

var (
	// nraised counts the raised tokens of live runs: Check's fast path.
	nraised atomic.Int32
	// mu guards tokens and every Token's raised and ended.
	mu     sync.Mutex
	tokens = map[unsafe.Pointer]*Token{}
	serial atomic.Uint64
)

// Begin makes a token and binds the calling goroutine, and every goroutine
// it starts until End, to it. ctx's labels (if any) are kept beside the
// token's own and restored by End, as pprof.Do does. The caller calls End on
// the same goroutine when the run is over.
func Begin(ctx context.Context) *Token {
	if ctx == nil {
		ctx = context.Background()
	}
	labelled := pprof.WithLabels(ctx, pprof.Labels("kml-run", strconv.FormatUint(serial.Add(1), 10)))
	pprof.SetGoroutineLabels(labelled)
	t := &Token{labels: goroutineLabels(), parent: ctx}
	mu.Lock()
	tokens[t.labels] = t
	mu.Unlock()
	return t
}

// Raise makes the kernels bound to t stop at their next check. It may be
// called from any goroutine, any number of times; after End it does
// nothing, so a late interrupt never reaches the next run.
func (t *Token) Raise() {
	mu.Lock()
	defer mu.Unlock()
	if !t.raised && !t.ended {
		t.raised = true
		nraised.Add(1)
	}
}

// Raised reports whether t was raised during its run.
func (t *Token) Raised() bool {
	mu.Lock()
	defer mu.Unlock()
	return t.raised
}

// End ends t's run: the calling goroutine (the one that called Begin) gets
// back the labels it had, and t no longer stops anything. Goroutines the
// run started and left behind become unbound.
func (t *Token) End() {
	mu.Lock()
	if !t.ended {
		t.ended = true
		if t.raised {
			nraised.Add(-1)
		}
		delete(tokens, t.labels)
	}
	mu.Unlock()
	pprof.SetGoroutineLabels(t.parent)
}

// Raised reports whether the calling goroutine's run was interrupted: what
// a worker goroutine checks to return early, leaving the panic to the
// goroutine that started it.
func Raised() bool {
	if nraised.Load() == 0 {
		return false
	}
	return raisedHere()
}

// raisedHere is Raised's slow path, out of line so that the fast path
// inlines into the kernels.
func raisedHere() bool {
	p := goroutineLabels()
	if p == nil {
		return false
	}
	mu.Lock()
	defer mu.Unlock()
	t := tokens[p]
	return t != nil && t.raised
}

// Check panics with Stop when the calling goroutine's run was interrupted:
// the check a kernel makes on the goroutine that called it.
func Check() {
	if nraised.Load() != 0 && raisedHere() {
		panic(Stop)
	}
}

// Is reports whether r, a recovered panic value or an error, is Stop.
func Is(r any) bool {
	err, ok := r.(error)
	return ok && errors.Is(err, Stop)
}
