package ktest

import "github.com/kml-lang/kml/lang/eval"

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	registerKtests(r)
	registerBKL(r)
	registerKSD(r)
	registerDHSIC(r)
}
