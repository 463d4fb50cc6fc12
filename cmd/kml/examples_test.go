//go:build examples

package main

import "testing"

// TestExamplesFull runs every program in examples/ at its full settings
// (the "# quick:" lines ignored), side by side, and expects success. It
// takes several minutes, so it is not part of `go test ./...`; run it with
//
//	go test -tags examples -timeout 60m ./cmd/kml
//
// as .ci/run does.
func TestExamplesFull(t *testing.T) {
	dir, files := copyExamples(t, false)
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runExample(t, dir, name)
		})
	}
}
