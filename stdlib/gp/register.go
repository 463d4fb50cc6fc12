package gp

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerGp(r)
	registerGpPredict(r)
	registerHsgp(r)
}
