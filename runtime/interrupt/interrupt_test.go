package interrupt

import (
	"context"
	"runtime/pprof"
	"sync"
	"testing"
)

// stopped runs f and returns the value it panicked with (nil if none).
func stopped(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// onGoroutine runs f on a new goroutine and waits for it.
func onGoroutine(f func()) {
	var wg sync.WaitGroup
	wg.Go(f)
	wg.Wait()
}

// TestTokensAreSeparate: raising one run's token stops the goroutine that
// began it and the goroutines it starts, and neither another run's nor an
// unbound goroutine; End forgets the raise, and a Raise after End does
// nothing (a late interrupt never reaches the next run).
func TestTokensAreSeparate(t *testing.T) {
	beganA, beganB := make(chan *Token), make(chan *Token)
	raised, ended := make(chan struct{}), make(chan struct{})
	results := make(chan string, 8)
	run := func(began chan<- *Token, name string, wantStop bool) {
		tok := Begin(context.Background())
		began <- tok
		<-raised
		if got := Is(stopped(Check)); got != wantStop {
			results <- name + ": Check stopped = " + yes(got)
		}
		onGoroutine(func() { // a worker started by the run
			if Raised() != wantStop {
				results <- name + ": a worker's Raised = " + yes(!wantStop)
			}
			if got := Is(stopped(Check)); got != wantStop {
				results <- name + ": a worker's Check stopped = " + yes(got)
			}
		})
		tok.End()
		if Is(stopped(Check)) || Raised() {
			results <- name + ": stopped after End"
		}
		ended <- struct{}{}
	}
	go run(beganA, "A (raised)", true)
	go run(beganB, "B (not raised)", false)
	a := <-beganA
	<-beganB
	a.Raise()
	a.Raise() // twice counts once
	close(raised)
	if Is(stopped(Check)) || Raised() {
		t.Error("an unbound goroutine stopped")
	}
	<-ended
	<-ended
	close(results)
	for r := range results {
		t.Error(r)
	}
	if n := nraised.Load(); n != 0 {
		t.Errorf("after both runs ended, %d tokens count as raised", n)
	}
	a.Raise()
	if n := nraised.Load(); n != 0 {
		t.Errorf("Raise after End: %d tokens count as raised", n)
	}
}

// TestEndRestoresLabels: the goroutine gets back the labels of the context
// it began under, as after pprof.Do.
func TestEndRestoresLabels(t *testing.T) {
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("host", "x"))
	pprof.SetGoroutineLabels(ctx)
	defer pprof.SetGoroutineLabels(context.Background())
	before := goroutineLabels()
	tok := Begin(ctx)
	if goroutineLabels() == before {
		t.Fatal("Begin left the goroutine's labels as they were")
	}
	tok.End()
	if goroutineLabels() != before {
		t.Error("End did not restore the labels the goroutine had")
	}
}

func yes(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
