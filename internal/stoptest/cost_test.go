package stoptest

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// spin keeps a core busy for d of processor time.
func spin(d time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for start := threadCPU(); threadCPU()-start < d; {
	}
}

// TestAwaitCountsTheWorkAfterTheStop: a computation that sleeps after its
// stop costs wall time and almost no processor time; one that works 200
// ms of processor time after its stop costs about that, however long it
// waits for a core.
func TestAwaitCountsTheWorkAfterTheStop(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process clock is read on Linux only")
	}
	for _, c := range []struct {
		name   string
		after  func()
		lo, hi time.Duration
	}{
		{"sleeps", func() { time.Sleep(300 * time.Millisecond) }, 0, 100 * time.Millisecond},
		{"works", func() { spin(200 * time.Millisecond) }, 190 * time.Millisecond, time.Second},
	} {
		stop := make(chan struct{})
		done := make(chan error, 1)
		go func() {
			<-stop
			c.after()
			done <- nil
		}()
		_, cost, ok := Await(func() { close(stop) }, done, time.Minute)
		if !ok || cost.CPU < c.lo || cost.CPU > c.hi {
			t.Errorf("%s: cost %v (returned %v), want processor time in [%v, %v]", c.name, cost, ok, c.lo, c.hi)
		}
		if c.name == "sleeps" && cost.Wall < 300*time.Millisecond {
			t.Errorf("sleeps: wall %v, want at least the 300 ms slept", cost.Wall)
		}
	}
	never := make(chan error)
	if _, _, ok := Await(func() {}, never, 10*time.Millisecond); ok {
		t.Error("Await returned true for a computation that never ended")
	}
}

// TestChildCPU: read for this process, the /proc clock agrees with the
// rusage clock to its resolution.
func TestChildCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is read on Linux only")
	}
	spin(100 * time.Millisecond)
	before := ProcessCPU()
	got, ok := ChildCPU(os.Getpid())
	after := ProcessCPU()
	if !ok || got < before-2*clockTick || got > after+2*clockTick {
		t.Errorf("ChildCPU(self) = %v, %v; rusage %v to %v", got, ok, before, after)
	}
	if _, ok := ChildCPU(-1); ok {
		t.Error("ChildCPU(-1) was read")
	}
}
