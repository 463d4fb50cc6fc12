//go:build !linux

package stoptest

import "time"

// threadCPU is 0 where no per-thread clock is read: Probe reports 1.
func threadCPU() time.Duration { return 0 }
