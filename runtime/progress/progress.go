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
// the outermost computation is the one reported; a task started under
// Nest's context adds its steps to the task that nests it as well (the
// permutations of each kernel of an aggregate test, counted on the test's
// one line). The line appears only once a task has run for Delay, is
// redrawn at most once per Every, and is erased when the task ends. While
// no step ends it is still redrawn every Tick with its elapsed time, so a
// computation whose first step takes minutes (a large Gram matrix, the
// first L-BFGS start) shows from Delay that it runs.
//
// Besides the terminal's line, a Reporter can hand each drawing to a
// function (Sink) as an Event: the Go API's progress callback.
package progress

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Reporter draws the line on W (nil: no line) and hands each drawing to
// Sink (nil: none).
type Reporter struct {
	W     io.Writer
	Every time.Duration    // the shortest interval between redraws
	Delay time.Duration    // how long a task runs before its line appears
	Tick  time.Duration    // how often a line is redrawn while no step ends (0: never)
	Now   func() time.Time // the clock (tests replace it)
	// Sink, when set, receives every drawing and the end of each shown
	// task, on the goroutine that draws, with the reporter locked: it must
	// return quickly and not start tasks.
	Sink func(Event)

	mu     sync.Mutex
	active *Task // the task shown, nil when none
	last   time.Time
	drawn  bool
}

// Event is one drawing of a task's line, or its end.
type Event struct {
	Name    string        // the computation: a builtin's name ("optimize")
	What    string        // what is counted ("permutations"); "" for a line of its own
	Done    int64         // steps done
	Total   int64         // steps in all; 0 when not known in advance
	Elapsed time.Duration // since the task started
	Line    string        // the line as the terminal shows it, after "NAME: "
	End     bool          // the task ended (its line is erased)
}

// New is a reporter drawing on w at most 10 times a second, for tasks that
// run longer than a second, redrawn twice a second while no step ends.
func New(w io.Writer) *Reporter {
	return &Reporter{W: w, Every: 100 * time.Millisecond, Delay: time.Second, Tick: 500 * time.Millisecond, Now: time.Now}
}

type key struct{}

type named struct {
	r      *Reporter
	name   string
	parent *Task // Nest's task, which a task started here also counts on
}

// With returns ctx carrying r, for the computation name (a builtin's
// name, the start of its line). A nil r returns ctx.
func With(ctx context.Context, r *Reporter, name string) context.Context {
	if r == nil {
		return ctx
	}
	return context.WithValue(ctx, key{}, named{r: r, name: name})
}

// Nest returns ctx in which a task started counts its steps on t as well
// as on itself: an outer task whose steps are done by an inner loop that
// starts its own task (one per kernel of a collection). A nil t returns
// ctx.
func (t *Task) Nest(ctx context.Context) context.Context {
	if t == nil {
		return ctx
	}
	n, ok := ctx.Value(key{}).(named)
	if !ok {
		return ctx
	}
	n.parent = t
	return context.WithValue(ctx, key{}, n)
}

// Task counts the work of one computation. A nil *Task does nothing.
type Task struct {
	r     *Reporter
	name  string
	what  string
	label string
	up    *Task // the task this one's steps are also counted on (Nest)
	total int64
	done  atomic.Int64
	start time.Time
	shown bool // the reporter's line is this task's
	// custom, when set, draws the line after "NAME: " (StartLine).
	custom func(done int64, elapsed time.Duration) string
	stop   chan struct{} // closed by Done: ends the ticker
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
	t := &Task{r: r, name: n.name, what: what, label: n.name + ": " + what, up: n.parent, total: int64(total), start: r.Now()}
	r.mu.Lock()
	if r.active == nil {
		r.active, t.shown = t, true
	}
	r.mu.Unlock()
	if t.shown && r.Tick > 0 {
		t.stop = make(chan struct{})
		go t.tick(r.Tick)
	}
	return t
}

// tick redraws the line every d until Done, so its time moves while no
// step ends.
func (t *Task) tick(d time.Duration) {
	tk := time.NewTicker(d)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			t.Add(0)
		}
	}
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
	if k != 0 {
		t.up.Add(k)
	}
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
	// The count now, not the one this worker's step made: a worker held
	// up since its step (preempted on a crowded machine) would otherwise
	// draw an older count than one already drawn, and the line could end
	// short of its total.
	done = t.done.Load()
	line := t.line(done, now)
	if r.W != nil {
		fmt.Fprintf(r.W, "\r\033[K%s", line)
	}
	if r.Sink != nil {
		r.Sink(t.event(done, now, line))
	}
}

// event is the drawing of line as an Event.
func (t *Task) event(done int64, now time.Time, line string) Event {
	return Event{Name: t.name, What: t.what, Done: done, Total: t.total, Elapsed: now.Sub(t.start),
		Line: strings.TrimPrefix(line, t.name+": ")}
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
	} else {
		s += "  " + Duration(elapsed) // no rate yet: the time it has run
	}
	return s
}

// Done ends the task, erasing its line if one was drawn. It may be called
// more than once.
func (t *Task) Done() {
	if t == nil || !t.shown {
		return
	}
	r := t.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active == t {
		if t.stop != nil {
			close(t.stop)
		}
		r.active = nil
		if r.drawn {
			if r.W != nil {
				fmt.Fprint(r.W, "\r\033[K")
			}
			if r.Sink != nil {
				now := r.Now()
				ev := t.event(t.done.Load(), now, t.line(t.done.Load(), now))
				ev.End = true
				r.Sink(ev)
			}
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
