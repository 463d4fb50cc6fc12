// Package isatest makes a package's benchmarks name the vector path they
// ran: its test binary's TestMain calls Main, which prints isa.Describe()
// once before the benchmarks (beside the testing package's own "cpu:"
// line) whenever -test.bench is set.
package isatest

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/kml-lang/kml/runtime/isa"
)

// Main runs the tests and benchmarks of m and exits with their status,
// printing the vector path first when benchmarks run, and an unknown
// KML_CPU value as a warning.
func Main(m *testing.M) {
	flag.Parse()
	if err := isa.EnvErr(); err != nil {
		fmt.Fprintf(os.Stderr, "warning: %v; running the CPU's widest path\n", err)
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		fmt.Println(isa.Describe())
	}
	os.Exit(m.Run())
}
