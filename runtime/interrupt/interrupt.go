// Package interrupt is the process-wide stop that cuts a dense linear
// algebra operation short when the user interrupts a run.
//
// A run is cancelled through its context, and every loop KML writes checks
// the context. A single large factorisation cannot: mat.Cholesky, LU and
// inverses run inside gonum, which calls the level-3 BLAS installed as a
// process-wide value (blas64.Use) with no context argument, and at n = 6000
// a Cholesky takes seconds and an inverse tens of seconds. Go has no
// goroutine-local state through which a context could reach the kernels, so
// the stop is process-wide: the owner of the process (the kml command on
// SIGINT or SIGTERM, the REPL on Ctrl-C while a statement runs) cancels the
// run's context and then calls Raise. From then on every level-3 BLAS call
// (runtime/internal/blas3, between blocked panels) panics with Stop on the
// goroutine that called it; its worker goroutines only return early, so a
// panic never starts on a goroutine nobody recovers. The kernel matrices of
// runtime/kernels check it too, before each block of rows (their workers'
// panics reach the caller through runtime/internal/par). lang/eval recovers Stop
// at the builtin call (or the statement) and reports the positioned
// "NAME: interrupted", the same error every cancelled builtin reports.
// Recovered elsewhere (a chain's guard turns a panic into an error), the
// error still becomes "interrupted", because the run's context is done.
//
// A program embedding several interpreters in one process must not Raise
// for one of them: every dense operation in the process would stop. It
// keeps the context's checks, which every KML loop makes.
package interrupt

import (
	"errors"
	"sync/atomic"
)

var raised atomic.Bool

type stop struct{}

func (stop) Error() string { return "interrupted" }

// Stop is the value the dense kernels panic with once Raise was called.
var Stop error = stop{}

// Raise makes every dense kernel in the process stop at its next check.
// The caller has cancelled the run's context first.
func Raise() { raised.Store(true) }

// Clear ends a Raise, once the interrupted statement has unwound (the REPL
// goes on to the next one).
func Clear() { raised.Store(false) }

// Raised reports whether Raise was called and not cleared.
func Raised() bool { return raised.Load() }

// Check panics with Stop when Raise was called: the check a kernel makes
// on the goroutine that called it.
func Check() {
	if raised.Load() {
		panic(Stop)
	}
}

// Is reports whether r, a recovered panic value or an error, is Stop.
func Is(r any) bool {
	err, ok := r.(error)
	return ok && errors.Is(err, Stop)
}
