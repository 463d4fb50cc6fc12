package kbr

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerKbr(r)
	registerKbrsim(r)
	registerKbrfilter(r)
	registerKbrcv(r)
}
