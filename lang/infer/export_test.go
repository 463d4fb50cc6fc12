package infer

import "time"

// SetSampleClock replaces Sample's clock and the hook every Density that
// computes derived quantities is given, until restore is called.
func SetSampleClock(now func() time.Time, hook func(replayed bool)) (restore func()) {
	oldClock, oldHook := clock, derivedRowHook
	clock, derivedRowHook = now, hook
	return func() { clock, derivedRowHook = oldClock, oldHook }
}
