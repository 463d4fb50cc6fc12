// Command gen writes the generated assembly of one package into the
// current directory; the package's //go:generate line runs it there:
//
//	go run ../asmgen/gen blas3
//
// See package runtime/internal/asmgen.
package main

import (
	"fmt"
	"os"

	"github.com/kml-lang/kml/runtime/internal/asmgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: gen package (one of %v)\n", asmgen.Packages())
		os.Exit(2)
	}
	if _, err := asmgen.Write(".", os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
