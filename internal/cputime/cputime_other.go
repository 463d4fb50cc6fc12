//go:build !unix

package cputime

import "time"

// Used is 0 where getrusage is missing: benchmarks then report no
// processor time.
func Used() time.Duration { return 0 }
