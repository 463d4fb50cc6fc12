package gp

import (
	"testing"

	"github.com/kml-lang/kml/runtime/isa/isatest"
)

// TestMain prints the vector path (KML_CPU, the CPU) before benchmarks.
func TestMain(m *testing.M) { isatest.Main(m) }
