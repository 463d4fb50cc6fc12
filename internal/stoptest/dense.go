package stoptest

import (
	"bytes"
	"runtime/pprof"
	"strings"
	"time"
)

// DenseRuns is the number of runs with a goroutine inside the level-3
// BLAS (runtime/internal/blas3) now. Runs are told apart by the profiler
// label runtime/interrupt gives each (kml-run), which the goroutine
// profile prints above each stack.
func DenseRuns() int {
	var b bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&b, 1)
	runs := map[string]bool{}
	for _, rec := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(rec, "runtime/internal/blas3.") {
			continue
		}
		if _, labels, ok := strings.Cut(rec, "# labels: "); ok {
			labels, _, _ = strings.Cut(labels, "\n")
			runs[labels] = true
		}
	}
	return len(runs)
}

// WaitDense waits until at least n runs are inside the level-3 BLAS, and
// reports false if that has not happened within limit.
func WaitDense(n int, limit time.Duration) bool {
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if DenseRuns() >= n {
			return true
		}
	}
	return false
}
