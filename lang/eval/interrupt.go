package eval

import (
	"context"

	"github.com/kml-lang/kml/runtime/interrupt"
)

// evaluation is the run an interpreter is in the middle of: what
// Interrupt stops.
type evaluation struct {
	cancel context.CancelFunc
	stop   *interrupt.Token // the dense stop of this run (runtime/interrupt)
}

// Interrupt stops the evaluation running now, from any goroutine: its
// context is cancelled, so every loop stops at its next check, and its
// dense stop is raised, so a factorisation or product running inside gonum
// stops at its next block (runtime/interrupt). The evaluation returns an
// "interrupted" error at the running statement that satisfies
// errors.Is(err, context.Canceled); the interpreter stays usable. It stops
// nothing else: not another interpreter's work, not this interpreter's
// next evaluation (an Interrupt while none runs does nothing), as
// starlark's Thread.Cancel stops one thread. Every front end (kml run, the
// REPL, the Jupyter kernel) interrupts through it.
//
// Cancelling the context an evaluation runs under (or its deadline) stops
// its loops but not a factorisation already running inside gonum, which
// ends first: the error is then reported at the next check, as it always
// was for an embedder's context. Interrupt is what cuts the factorisation
// short.
func (in *Interpreter) Interrupt() {
	in.runMu.Lock()
	r := in.run
	in.runMu.Unlock()
	if r != nil {
		r.cancel()
		r.stop.Raise()
	}
}

// begin starts an evaluation under ctx: a context Interrupt cancels, and a
// new dense-stop token (a new generation, so an earlier interrupt cannot
// reach this run) bound to the calling goroutine and to every goroutine
// the run starts. end, called on the same goroutine, forgets both. An
// evaluation begun while one runs (a nested call) is part of it.
func (in *Interpreter) begin(ctx context.Context) (_ context.Context, end func()) {
	in.runMu.Lock()
	defer in.runMu.Unlock()
	if in.run != nil {
		return ctx, func() {}
	}
	in.steps.Store(0)
	ctx, cancel := context.WithCancel(ctx)
	tok := interrupt.Begin(ctx)
	r := &evaluation{cancel: cancel, stop: tok}
	in.run = r
	return ctx, func() {
		in.runMu.Lock()
		in.run = nil
		in.runMu.Unlock()
		cancel()
		tok.End()
	}
}
