package kst

import "runtime"

// setProcs sets GOMAXPROCS and returns the old value.
func setProcs(n int) int { return runtime.GOMAXPROCS(n) }
