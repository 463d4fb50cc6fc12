package fit

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerFit(r)
	registerLogp(r)
	registerApprox(r)
	registerPredictive(r)
	registerSBC(r)
}
