//go:build unix

package ktest

import (
	"syscall"
	"time"
)

// cpuTime is the processor time the process has used, all threads: the
// permutation-test benchmarks report it per run, which a busy machine
// moves less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
