//go:build !unix

package ktest

import "time"

// cpuTime is 0 where getrusage is missing: no cpu-ms/op figure.
func cpuTime() time.Duration { return 0 }
