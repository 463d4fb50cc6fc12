package inference

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/progress"
)

// eventLog collects a reporter's events, each with the objective's
// evaluation count when it arrived (the hook that tells an event drawn
// during a start from one drawn after it).
type eventLog struct {
	mu     sync.Mutex
	evals  *atomic.Int64
	events []progress.Event
	at     []int64
}

// reporting is a context whose reporter hands every drawing at once (no
// delay, no throttle, no ticker) to l.
func (l *eventLog) reporting(name string) context.Context {
	r := progress.New(nil)
	r.Delay, r.Every, r.Tick = 0, 0, 0
	r.Now = time.Now
	r.Sink = func(e progress.Event) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.events = append(l.events, e)
		l.at = append(l.at, l.evals.Load())
	}
	return progress.With(context.Background(), r, name)
}

// counted is o with its evaluations counted on n.
func counted(o fn, n *atomic.Int64) fn {
	return fn{o.d, func(grad, q []float64) float64 { n.Add(1); return o.f(grad, q) }}
}

// TestOptimizeProgressFromTheFirstIteration: one start (the default,
// which drew no line before) shows its L-BFGS iteration, log density and
// gradient norm while it runs: events arrive before its last evaluation,
// the iterations count up one by one to the result's, and the last
// iteration's log density and gradient norm are the result's.
func TestOptimizeProgressFromTheFirstIteration(t *testing.T) {
	var evals atomic.Int64
	l := &eventLog{evals: &evals}
	r, err := Maximize(l.reporting("optimize"), of(counted(rosenbrock, &evals)), Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	total := evals.Load()
	if len(l.events) < 3 || l.at[0] >= total {
		t.Fatalf("%d events, the first after %d of %d evaluations", len(l.events), l.at[0], total)
	}
	last, iter := progress.Event{}, 0
	for i, e := range l.events[:len(l.events)-1] {
		var it, ev int
		var lp, g float64
		var elapsed string
		if _, err := fmt.Sscanf(e.Line, "L-BFGS iteration %d (%d evaluations), log density %g, gradient norm %g  %s", &it, &ev, &lp, &g, &elapsed); err != nil {
			t.Fatalf("event %d: %q: %v", i, e.Line, err)
		}
		if e.Name != "optimize" || e.End || it < iter || it > iter+1 || ev < it {
			t.Fatalf("event %d %+v after iteration %d", i, e, iter)
		}
		if it == r.Iterations && iter < it {
			if math.Abs(lp-r.Value) > 1e-5*math.Max(1, math.Abs(r.Value)) || math.Abs(g-r.GradNorm) > 1e-2*r.GradNorm+1e-12 {
				t.Errorf("last iteration: log density %g, gradient norm %g; result %g, %g", lp, g, r.Value, r.GradNorm)
			}
		}
		iter, last = it, e
	}
	if iter != r.Iterations {
		t.Errorf("the line counted %d iterations, the result %d (%s)", iter, r.Iterations, last.Line)
	}
	if end := l.events[len(l.events)-1]; !end.End {
		t.Errorf("the last event %+v does not end the task", end)
	}
}

// TestOptimizeStartsProgress: several starts, one at a time, show their
// iterations while the first start runs, before any start is done.
func TestOptimizeStartsProgress(t *testing.T) {
	var evals atomic.Int64
	l := &eventLog{evals: &evals}
	if _, err := Maximize(l.reporting("optimize"), of(counted(rosenbrock, &evals)), Settings{Seed: 1, Starts: 2, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	var lp float64
	var iters int
	var elapsed string
	e := l.events[0]
	if _, err := fmt.Sscanf(e.Line, "starts 0/2 (0%%), %d L-BFGS iterations, best log density %g  %s", &iters, &lp, &elapsed); err != nil || e.Done != 0 || e.Total != 2 || iters < 1 || lp > 0 {
		t.Fatalf("the first event %+v: %v", e, err)
	}
	if e := l.events[len(l.events)-2]; e.Done != 2 {
		t.Errorf("the last drawing %+v, want starts 2/2", e)
	}
}
