//go:build !unix

package gp_test

import "time"

// cpuTime is not measured off Unix; the benchmarks report 0 cpu-s/op.
func cpuTime() time.Duration { return 0 }
