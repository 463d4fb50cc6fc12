package progress

import (
	"bytes"
	"context"
	"strings"
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
