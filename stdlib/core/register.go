package core

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerMath(r)
	registerReduce(r)
	registerBuild(r)
	registerLinalg(r)
	registerIterate(r)
	registerTimed(r)
	registerMap(r)
	registerWilcoxon(r)
	registerIfElse(r)
}
