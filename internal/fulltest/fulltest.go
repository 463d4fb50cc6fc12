// Package fulltest separates the checks that the README's `go test ./...`
// runs from the longer ones only CI runs.
//
// The README's command has to pass on a crowded 2-core machine (load 40)
// with no package above five minutes, which leaves each package about 20
// seconds of processor time. Checks that need more — large sweeps, level
// studies with hundreds of replications, the examples at full size — still
// run on every change, because `.ci/run` sets KML_FULL=1 for its
// `go test ./...`. Each such test calls Require with the reason it is long,
// so a skipped run says what it left out and how to run it.
package fulltest

import (
	"os"
	"testing"
)

// Env is the variable that turns the long checks on.
const Env = "KML_FULL"

// Enabled reports whether the long checks run (KML_FULL set and not "0").
func Enabled() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}

// Require skips t unless the long checks are enabled. why says what the
// test costs, for the skip message.
func Require(t testing.TB, why string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("long check (%s): runs with %s=1, as .ci/run sets", why, Env)
	}
}
