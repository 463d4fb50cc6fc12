package stoptest

import (
	"fmt"
	"time"
)

// Cost is what stopping a computation took: the wall time from the stop
// to the return, and the processor time the stopping process used
// meanwhile (all its threads). The wall time grows with the machine's
// load; the processor time does not: it is the work done after the stop,
// which a computation that honours the stop keeps small whatever else
// runs. A test judges the stop by CPU, and keeps Wall for its log.
type Cost struct {
	Wall, CPU time.Duration
}

func (c Cost) String() string {
	return fmt.Sprintf("%v (%v of processor time)", c.Wall.Round(time.Millisecond), c.CPU.Round(time.Millisecond))
}

// Await calls stop, then waits at most limit for done to deliver the
// computation's error, and returns that error, the cost of stopping, and
// whether done delivered within limit. The computation runs in this
// process, and nothing else in it should be busy meanwhile (a test that is
// not parallel), since CPU counts every thread of the process. Where the
// process clock is not read (not Linux) CPU is the wall time.
func Await(stop func(), done <-chan error, limit time.Duration) (error, Cost, bool) {
	cpu0, start := ProcessCPU(), time.Now()
	stop()
	var err error
	ok := true
	select {
	case err = <-done:
	case <-time.After(limit):
		ok = false
	}
	c := Cost{Wall: time.Since(start), CPU: ProcessCPU() - cpu0}
	if cpu0 == 0 {
		c.CPU = c.Wall
	}
	return err, c, ok
}
