// Package stoptest helps the tests that time how fast an interrupt stops a
// dense factorisation (lang/eval, lang/jupyter): WaitDense waits until runs
// are inside the level-3 BLAS, so the interrupt lands in the factorisation
// and not in the checks around it, and a Probe measures the share of a
// processor a runnable thread gets, so a slow stop can be told from a
// crowded machine. On a machine at load 40 with 2 cores a runnable thread
// gets about a twentieth of a core, and 20 ms of work takes 0.4 s of wall
// time; a test that allows 0.5 s judges a stop by the time it would have
// taken with a core of its own: wall × share.
//
// The other tests of a stop (a cancelled kfold, a Ctrl-C in `kml run`)
// count the work done after it instead: Await measures the processor time
// this process used from the stop to the return, ChildCPU what a child
// process used after a signal. That work, unlike the wall time, does not
// grow with the load, so the bound can stay close to the promise on any
// machine.
package stoptest

import (
	"runtime"
	"sync/atomic"
	"time"
)

// A Probe spins on a thread of its own until Stop, and reports the share
// of a processor that thread got meanwhile: its CPU time over the wall
// time. It adds one runnable thread to the machine.
type Probe struct {
	stop  atomic.Bool
	share chan float64
}

// Start starts a probe.
func Start() *Probe {
	p := &Probe{share: make(chan float64, 1)}
	started := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		cpu0, wall0 := threadCPU(), time.Now()
		close(started)
		for !p.stop.Load() {
		}
		cpu, wall := threadCPU()-cpu0, time.Since(wall0)
		if cpu <= 0 || wall <= 0 {
			p.share <- 1 // no thread clock here: no adjustment
			return
		}
		p.share <- min(1, float64(cpu)/float64(wall))
	}()
	<-started
	return p
}

// Stop ends the probe and returns the share, in (0, 1].
func (p *Probe) Stop() float64 {
	p.stop.Store(true)
	return <-p.share
}
