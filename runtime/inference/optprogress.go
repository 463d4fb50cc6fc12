package inference

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/kml-lang/kml/runtime/progress"
	"gonum.org/v1/gonum/optimize"
)

// optProgress is Maximize's progress line, from the first evaluation on:
// one start shows its L-BFGS iteration, evaluations, log density and
// gradient norm ("iteration 12 (31 evaluations), log density -104.2,
// gradient norm 0.0031  4s"); several show the starts done and the
// iterations and best log density over all of them ("starts 1/4 (25%), 57
// L-BFGS iterations, best log density -98.7  9s"). The reporter's Tick
// redraws it while an iteration runs, so a slow first evaluation (a large
// GP) shows its time. A nil *optProgress does nothing.
type optProgress struct {
	task   *progress.Task
	starts int

	mu           sync.Mutex
	iters, evals int
	value, gnorm float64 // of the last iteration of the one start
	best         float64 // the largest log density seen, over all starts
}

// startOptProgress starts the line of a maximisation of starts starts;
// without a reporter in ctx it returns nil.
func startOptProgress(ctx context.Context, starts int) *optProgress {
	p := &optProgress{starts: starts, value: math.NaN(), gnorm: math.NaN(), best: math.Inf(-1)}
	if starts > 1 {
		p.task = progress.StartLine(ctx, starts, p.line)
	} else {
		p.task = progress.StartLine(ctx, 0, p.line)
	}
	if p.task == nil {
		return nil
	}
	return p
}

// line draws the status after "NAME: ".
func (p *optProgress) line(done int64, elapsed time.Duration) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := progress.Duration(elapsed.Seconds())
	if p.starts > 1 {
		s := fmt.Sprintf("starts %d/%d (%d%%), %d L-BFGS iterations", done, p.starts, 100*done/int64(p.starts), p.iters)
		if !math.IsInf(p.best, -1) {
			s += fmt.Sprintf(", best log density %.6g", p.best)
		}
		return s + "  " + t
	}
	s := fmt.Sprintf("L-BFGS iteration %d (%d evaluations)", p.iters, p.evals)
	if !math.IsNaN(p.value) {
		s += fmt.Sprintf(", log density %.6g, gradient norm %.3g", p.value, p.gnorm)
	}
	return s + "  " + t
}

// done counts a start done.
func (p *optProgress) done() {
	if p != nil {
		p.task.Add(1)
	}
}

// end erases the line.
func (p *optProgress) end() {
	if p != nil {
		p.task.Done()
	}
}

// recorder is the gonum Recorder of one start, which counts its
// evaluations and iterations on p.
func (p *optProgress) recorder() optimize.Recorder {
	if p == nil {
		return nil
	}
	return &optRecorder{p: p}
}

// optRecorder counts one start's work on the shared line.
type optRecorder struct {
	p     *optProgress
	iters int // this start's iterations counted on p
}

func (*optRecorder) Init() error { return nil }

// Record counts an evaluation, or an iteration (gonum's count, which
// includes the one that converged, recorded as the PostIteration) with
// the log density (gonum minimises its negation) and the largest gradient
// component at the new point, the norm the convergence test (GradTol)
// uses.
func (r *optRecorder) Record(loc *optimize.Location, op optimize.Operation, st *optimize.Stats) error {
	p := r.p
	p.mu.Lock()
	if op&optimize.FuncEvaluation != 0 {
		p.evals++
	}
	iter := (op == optimize.MajorIteration || op == optimize.PostIteration) && !math.IsInf(loc.F, 0) && !math.IsNaN(loc.F)
	if iter {
		p.iters += st.MajorIterations - r.iters
		r.iters = st.MajorIterations
		p.value = -loc.F
		p.gnorm = 0
		for _, g := range loc.Gradient {
			p.gnorm = math.Max(p.gnorm, math.Abs(g))
		}
		p.best = math.Max(p.best, p.value)
	}
	p.mu.Unlock()
	if iter {
		p.task.Add(0) // a redraw, throttled by the reporter
	}
	return nil
}
