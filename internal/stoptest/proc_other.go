//go:build !linux

package stoptest

import "time"

// ProcessCPU is 0 where the process clock is not read: a Cost's CPU is 0.
func ProcessCPU() time.Duration { return 0 }

// ChildCPU reports false where /proc is not read.
func ChildCPU(pid int) (time.Duration, bool) { return 0, false }
