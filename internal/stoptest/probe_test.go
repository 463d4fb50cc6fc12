package stoptest

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestShareFallsUnderLoad: with as many other spinning threads as cores
// beside it, the probe gets about half a core, and never more than one.
func TestShareFallsUnderLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the thread clock is read on Linux only")
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		wg.Go(func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for !stop.Load() {
			}
		})
	}
	p := Start()
	time.Sleep(300 * time.Millisecond)
	share := p.Stop()
	stop.Store(true)
	wg.Wait()
	if share <= 0 || share > 0.75 {
		t.Errorf("share beside %d spinning threads on %d cores = %.2f, want at most about 1/3", 2*runtime.NumCPU(), runtime.NumCPU(), share)
	}
}
