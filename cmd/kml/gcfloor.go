package main

import (
	"os"
	"runtime"
	"runtime/debug"
)

// firstGCPercent is the GOGC of a run until its first collection: Go's
// collector first runs when the heap reaches 4 MB × GOGC/100, so at 800
// about 32 MB are allocated first, instead of 4.
//
// A short script allocates a few megabytes: eight schools' whole kml run
// (4 chains of 2000 iterations, the summary, the CmdStan files) about 6 MB,
// and so two collections, each of which stops every goroutine to begin and
// end. On a shared machine (load 15) that was a tenth of the run's CPU
// (0.137 s against 0.123 s with GOGC=off, ten runs alternated) and more of
// its wall time: a stop waits for any of its threads the system has
// descheduled (33 ms of a 0.3 s run in one gctrace), and the median wall
// time was 0.58 s with the collections against 0.41 s without.
//
// From the first collection on, Go's default (GOGC=100: the heap grows to
// twice what is live) applies again, so a large computation's peak is as
// before. A run with --max-memory, whose budget the collector enforces
// through Go's memory limit, or with GOGC or GOMEMLIMIT set by the user,
// keeps Go's own settings from the start.
const firstGCPercent = 800

// gcSentinel is garbage from the start: its cleanup runs after the first
// collection. (It holds a pointer so that it is not one of the tiny
// objects whose cleanups may never run.)
type gcSentinel struct{ _ *byte }

// lateFirstGC sets GOGC to firstGCPercent until the first collection,
// unless maxMemory (--max-memory) or the user's GOGC or GOMEMLIMIT governs
// the collector.
func lateFirstGC(maxMemory int64) {
	if maxMemory > 0 || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(firstGCPercent)
	runtime.AddCleanup(new(gcSentinel), func(int) { debug.SetGCPercent(100) }, 0)
}
