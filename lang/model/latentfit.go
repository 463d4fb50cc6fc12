package model

import "github.com/kml-lang/kml/lang/eval"

// LatentFit is the typed part of what optimize returns for a model with a
// latent GP: the model and the objective it was fitted under, as parsed
// once from optimize's arguments. The user sees a record (its objective,
// approx, loss, C and epsilon fields print these back); predict reads the
// LatentFit kept beside that record (LatentFitOf) instead of parsing the
// fields again, and parses them only for a record built by hand.
type LatentFit struct {
	Model     *eval.Model
	Objective Objective
	// Fitted, when not nil, is a fitted approximation that carries its
	// own posterior (method "svgp": the *runtime/gp.SVGP), which predict
	// uses instead of refitting the model at the record's values.
	Fitted any
}

// KeepLatentFit keeps f beside rec, the record optimize returns for it.
func KeepLatentFit(rec *eval.Record, f LatentFit) { rec.SetOf(f) }

// LatentFitOf returns the LatentFit kept beside rec, if optimize made it.
func LatentFitOf(rec *eval.Record) (LatentFit, bool) {
	f, ok := rec.Of().(LatentFit)
	return f, ok
}
