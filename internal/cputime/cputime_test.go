//go:build unix

package cputime

import "testing"

// TestUsedGrows: busy work raises the process's processor time by at
// least a part of the work's own duration, and never lowers it.
func TestUsedGrows(t *testing.T) {
	t0 := Used()
	x := 0.0
	for i := 0; Used()-t0 < 20e6 && i < 1e9; i++ { // 20 ms of CPU, or give up
		x += float64(i)
	}
	if d := Used() - t0; d < 20e6 {
		t.Errorf("after a busy loop (%g) the processor time grew %v, want >= 20ms", x, d)
	}
}
