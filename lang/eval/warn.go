package eval

import (
	"fmt"

	"github.com/kml-lang/kml/lang/ast"
)

// Warn prints a warning for the user on stderr: "FILE:LINE:COL: warning: msg".
func (in *Interpreter) Warn(pos ast.Pos, msg string) {
	if pos.IsValid() {
		fmt.Fprintf(in.opts.Stderr, "%s: warning: %s\n", pos, msg)
	} else {
		fmt.Fprintf(in.opts.Stderr, "warning: %s\n", msg)
	}
}
