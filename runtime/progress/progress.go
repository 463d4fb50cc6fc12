// Package progress draws one status line on a terminal for a long
// computation: what runs, how far it is, and the time left. The builtins
// get a reporter from the interpreter (lang/eval puts it in the context of
// a builtin's call when the run draws progress, see eval.Args.Context) and
// the runtime loops count their work on a Task from Start; with no
// reporter in the context every call here does nothing. A computation
// whose line says more than "what done/total" (sample's warm-up and
// sampling bar) supplies its text through StartLine and leaves the drawing
// here, so there is one way lines are drawn, throttled and erased.
//
// One line is drawn at a time: a task started while another is shown (the
// permutations of a test inside tune, the tests of pc) counts silently, so
// the outermost computation is the one reported. The line appears only
// once a task has run for Delay, is redrawn at most once per Every, and is
// erased when the task ends.
package progress

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Reporter draws the line on W.
type Reporter struct {
	W     io.Writer
	Every time.Duration    // the shortest interval between redraws
	Delay time.Duration    // how long a task runs before its line appears
	Now   func() time.Time // the clock (tests replace it)

	mu     sync.Mutex
	active *Task // the task shown, nil when none
	last   time.Time
	drawn  bool
}

// New is a reporter drawing on w at most 10 times a second, for tasks that
// run longer than a second.
func New(w io.Writer) *Reporter {
	return &Reporter{W: w, Every: 100 * time.Millisecond, Delay: time.Second, Now: time.Now}
}

type key struct{}

type named struct {
	r    *Reporter
	name string
}

// With returns ctx carrying r, for the computation name (a builtin's
// name, the start of its line). A nil r returns ctx.
func With(ctx context.Context, r *Reporter, name string) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, named{r, name})
}

// Task counts the work of one computation. A nil *Task does nothing.
type Task struct {
	r     *Reporter
	label string
	total int64
	done  atomic.Int64
	start time.Time
	shown bool // the reporter's line is this task's
	// custom, when set, draws the line after "NAME: " (StartLine).
	custom func(done int64, elapsed time.Duration) string
}

// Start begins a task of total steps described by what ("permutations",
// "folds"), under the computation named in ctx. Without a reporter in ctx
// it returns nil.
func Start(ctx context.Context, what string, total int) *Task {
	if ctx == nil {
		return nil
	}
	n, ok := ctx.Value(key{}).(named)
	if !ok {
		return nil
	}
	r := n.r
	t := &Task{r: r, label: n.name + ": " + what, total: int64(total), start: r.Now()}
	r.mu.Lock()
	if r.active == nil {
		r.active, t.shown = t, true
	}
	r.mu.Unlock()
	return t
}

// StartLine is Start for a computation whose line says more than
// "what done/total": line(done, elapsed) is drawn after "NAME: " under the
// same rules (sample's warm-up and sampling bar, its rate and time left).
func StartLine(ctx context.Context, total int, line func(done int64, elapsed time.Duration) string) *Task {
	t := Start(ctx, "", total)
	if t != nil {
		t.custom = line
	}
	return t
}

// Add counts k more steps done (safe from any goroutine) and redraws the
// line when it is due.
func (t *Task) Add(k int) {
	if t == nil {
		return
	}
	done := t.done.Add(int64(k))
	if !t.shown {
		return
	}
	r := t.r
	now := r.Now()
	if now.Sub(t.start) < r.Delay {
		return
	}
	// The last step is always drawn, so that a line that stays up (a
	// notebook's, or one the next output does not replace) ends at its
	// total; any other step is skipped while another worker draws or
	// within Every of the last drawing.
	last := t.total > 0 && done == t.total
	if last {
		r.mu.Lock()
	} else if !r.mu.TryLock() {
		return // another worker is drawing
	}
	defer r.mu.Unlock()
	if r.active != t || (!last && r.drawn && now.Sub(r.last) < r.Every) {
		return
	}
	r.last, r.drawn = now, true
	fmt.Fprintf(r.W, "\r\033[K%s", t.line(done, now))
}

// line is the status: "pc: tests 120/400 (30%)  1m05s left".
func (t *Task) line(done int64, now time.Time) string {
	if t.custom != nil {
		return t.label + t.custom(done, now.Sub(t.start))
	}
	elapsed := now.Sub(t.start).Seconds()
	if t.total <= 0 {
		return fmt.Sprintf("%s %d  %s", t.label, done, Duration(elapsed))
	}
	done = min(done, t.total)
	s := fmt.Sprintf("%s %d/%d (%d%%)", t.label, done, t.total, 100*done/t.total)
	if done > 0 {
		left := elapsed * float64(t.total-done) / float64(done)
		s += "  " + Duration(left) + " left"
	}
	return s
}

// Done ends the task, erasing its line if one was drawn.
func (t *Task) Done() {
	if t == nil || !t.shown {
		return
	}
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == t {
		r.active = nil
		if r.drawn {
			fmt.Fprint(r.W, "\r\033[K")
		}
		r.drawn = false
	}
}

// Duration renders seconds as 4s, 2m05s or 1h02m.
func Duration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
