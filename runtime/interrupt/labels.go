package interrupt

import (
	_ "runtime/pprof" // defines the symbol below
	"unsafe"
)

// goroutineLabels is the calling goroutine's profiler label set, as
// pprof.SetGoroutineLabels stored it (nil when it has none); the Go runtime
// copies it to every goroutine the goroutine starts. runtime/pprof reads it
// through this very linkname; the runtime keeps the symbol and its
// signature for programs outside the standard library that read it too
// (go.dev/issue/67401).
//
//go:linkname goroutineLabels runtime/pprof.runtime_getProfLabel
func goroutineLabels() unsafe.Pointer
