package kst

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerKst(r)
	registerKstFantasy(r)
	registerDPM(r)
}
