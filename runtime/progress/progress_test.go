package progress

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLine drives a task with a fake clock: nothing before Delay, at most
// one redraw per Every, the count, percentage and time left, a nested task
// silent, and the line erased at the end.
func TestLine(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	r := New(&buf)
	r.Now = func() time.Time { return now }
	r.Tick = 0 // only the steps draw
	ctx := With(context.Background(), r, "mmd_test")
	task := Start(ctx, "permutations", 100)
	task.Add(10)
	if buf.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", buf.String())
	}
	now = now.Add(2 * time.Second)
	task.Add(10) // 20 done in 2 s: 8 s left
	want := "\r\033[Kmmd_test: permutations 20/100 (20%)  8s left"
	if buf.String() != want {
		t.Fatalf("line %q, want %q", buf.String(), want)
	}
	now = now.Add(50 * time.Millisecond)
	task.Add(1)
	if buf.String() != want {
		t.Fatalf("redrawn within Every: %q", buf.String())
	}
	inner := Start(ctx, "inner", 5)
	now = now.Add(5 * time.Second)
	inner.Add(5)
	inner.Done()
	if strings.Contains(buf.String(), "inner") {
		t.Fatalf("a nested task drew: %q", buf.String())
	}
	task.Add(29) // 50 done
	if !strings.HasSuffix(buf.String(), "mmd_test: permutations 50/100 (50%)  7s left") {
		t.Fatalf("line %q", buf.String())
	}
	task.Done()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Fatalf("not erased: %q", buf.String())
	}
	if Start(context.Background(), "x", 1) != nil {
		t.Fatal("a task without a reporter")
	}
	var none *Task
	none.Add(1)
	none.Done()
}

// TestStartLine: a task with its own line draws it after the computation's
// name with the count and elapsed time it is given, under the same delay,
// and erases it.
func TestStartLine(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	r := New(&buf)
	r.Now = func() time.Time { return now }
	r.Tick = 0 // only the steps draw
	ctx := With(context.Background(), r, "sample")
	task := StartLine(ctx, 10, func(done int64, elapsed time.Duration) string {
		return "custom " + Duration(float64(done)) + " " + Duration(elapsed.Seconds())
	})
	task.Add(3)
	if buf.Len() != 0 {
		t.Fatalf("drawn before the delay: %q", buf.String())
	}
	now = now.Add(75 * time.Second)
	task.Add(1)
	if want := "\r\033[Ksample: custom 4s 1m15s"; buf.String() != want {
		t.Fatalf("line %q, want %q", buf.String(), want)
	}
	task.Done()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Fatalf("not erased: %q", buf.String())
	}
	if StartLine(context.Background(), 1, nil) != nil {
		t.Fatal("a task without a reporter")
	}
}

// TestLastStepDrawn: the step that reaches the total is drawn even within
// Every of the last drawing (and would be while another worker draws), so
// a line that stays up ends at its total.
func TestLastStepDrawn(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	r := New(&buf)
	r.Now = func() time.Time { return now }
	r.Tick = 0 // only the steps draw
	ctx := With(context.Background(), r, "tune")
	task := Start(ctx, "candidates", 4)
	now = now.Add(2 * time.Second)
	task.Add(3)
	now = now.Add(10 * time.Millisecond) // within Every
	task.Add(1)
	if want := "\r\033[Ktune: candidates 4/4 (100%)  0s left"; !strings.HasSuffix(buf.String(), want) {
		t.Fatalf("last line %q, want it to end with %q", buf.String(), want)
	}
}

// syncBuffer is a buffer the ticker and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until cond holds, for at most a minute (a crowded machine
// runs the ticker late); it reports whether cond came to hold.
func waitFor(cond func() bool) bool {
	for end := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			return false
		}
	}
	return true
}

// TestTickBeforeTheFirstStep: a task none of whose steps has ended shows
// its line, with the time it has run, once Delay has passed (the fake
// clock), drawn by the ticker alone; the ticker stops at Done.
func TestTickBeforeTheFirstStep(t *testing.T) {
	var buf syncBuffer
	var mu sync.Mutex
	now := time.Unix(0, 0)
	r := New(&buf)
	r.Now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r.Tick = time.Millisecond
	ctx := With(context.Background(), r, "mmd_test")
	task := Start(ctx, "permutations", 100)
	time.Sleep(20 * time.Millisecond) // ticks before Delay draw nothing
	if s := buf.String(); s != "" {
		t.Fatalf("drawn before the delay: %q", s)
	}
	mu.Lock()
	now = now.Add(3 * time.Second)
	mu.Unlock()
	want := "\r\033[Kmmd_test: permutations 0/100 (0%)  3s"
	if !waitFor(func() bool { return strings.Contains(buf.String(), want) }) {
		t.Fatalf("no %q in a minute: %q", want, buf.String())
	}
	task.Done()
	end := buf.String()
	if !strings.HasSuffix(end, "\r\033[K") {
		t.Fatalf("not erased: %q", end)
	}
	time.Sleep(20 * time.Millisecond)
	if buf.String() != end {
		t.Fatalf("drawn after Done: %q", buf.String()[len(end):])
	}
}

// TestNest: a task started under Nest's context counts its steps on the
// nesting task's line as well; its own line is not drawn.
func TestNest(t *testing.T) {
	var buf bytes.Buffer
	now := time.Unix(0, 0)
	r := New(&buf)
	r.Now = func() time.Time { return now }
	r.Tick, r.Delay, r.Every = 0, 0, 0
	ctx := With(context.Background(), r, "mmd_test")
	outer := Start(ctx, "permutations", 30)
	for range 3 {
		inner := Start(outer.Nest(ctx), "inner permutations", 10)
		for range 10 {
			inner.Add(1)
		}
		inner.Done()
	}
	if got := buf.String(); strings.Contains(got, "inner") || !strings.HasSuffix(got, "mmd_test: permutations 30/30 (100%)  0s left") {
		t.Fatalf("lines %q", got)
	}
	outer.Done()
	var none *Task
	if none.Nest(ctx) != ctx {
		t.Fatal("a nil task's Nest changed ctx")
	}
}

// TestSink: every drawing reaches Sink as an Event with the counts, the
// elapsed time and the line, and so does the end; with no W nothing is
// written anywhere else.
func TestSink(t *testing.T) {
	var events []Event
	now := time.Unix(0, 0)
	r := New(nil)
	r.Now = func() time.Time { return now }
	r.Tick = 0
	r.Sink = func(e Event) { events = append(events, e) }
	ctx := With(context.Background(), r, "kfold")
	task := Start(ctx, "fits", 4)
	task.Add(1) // before Delay: not drawn
	now = now.Add(2 * time.Second)
	task.Add(1)
	task.Done()
	want := []Event{
		{Name: "kfold", What: "fits", Done: 2, Total: 4, Elapsed: 2 * time.Second, Line: "fits 2/4 (50%)  2s left"},
		{Name: "kfold", What: "fits", Done: 2, Total: 4, Elapsed: 2 * time.Second, Line: "fits 2/4 (50%)  2s left", End: true},
	}
	if len(events) != len(want) {
		t.Fatalf("events %+v, want %+v", events, want)
	}
	for i := range want {
		if events[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, events[i], want[i])
		}
	}
}

// TestLateWorkerDrawsNoOlderCount: a worker held up between counting its
// step and drawing (preempted on a crowded machine) does not draw its
// older count after another has drawn the total, so the line ends at the
// total. The clock, which Add reads between the two, holds the first
// worker until the second has drawn.
func TestLateWorkerDrawsNoOlderCount(t *testing.T) {
	var events []Event
	hold, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	r := New(nil)
	r.Delay, r.Every, r.Tick = 0, 0, 0
	r.Sink = func(e Event) { events = append(events, e) }
	r.Now = func() time.Time {
		if reads.Add(1) == 2 { // the first worker's Add (Start was the first)
			close(hold)
			<-release
		}
		return time.Unix(0, 0)
	}
	task := Start(With(context.Background(), r, "mmd_test"), "permutations", 2)
	late := make(chan struct{})
	go func() { task.Add(1); close(late) }()
	<-hold
	task.Add(1) // the total, drawn at once
	close(release)
	<-late
	task.Done()
	if len(events) < 2 {
		t.Fatalf("events %+v", events)
	}
	for i, e := range events[1:] {
		if e.Done < events[i].Done {
			t.Errorf("drew %d after %d: %+v", e.Done, events[i].Done, events)
		}
	}
	if e := events[len(events)-2]; e.Done != 2 || !events[len(events)-1].End {
		t.Errorf("the line ends at %+v, want 2/2 then the end: %+v", e, events)
	}
}
