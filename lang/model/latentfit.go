package model

import (
	"runtime"
	"sync"
	"weak"

	"github.com/kml-lang/kml/lang/eval"
)

// LatentFit is the typed part of what optimize returns for a model with a
// latent GP: the model and the objective it was fitted under, as parsed
// once from optimize's arguments. The user sees a record (its objective,
// approx, loss, C and epsilon fields print these back); predict reads the
// LatentFit kept beside that record (LatentFitOf) instead of parsing the
// fields again, and parses them only for a record built by hand.
type LatentFit struct {
	Model     *eval.Model
	Objective Objective
}

// latentFits maps a record optimize returned to its LatentFit, weakly: an
// entry goes when its record is collected. Records are not changed after
// they are made, so the two agree.
var latentFits sync.Map // weak.Pointer[eval.Record] → LatentFit

// KeepLatentFit keeps f beside rec, the record optimize returns for it.
func KeepLatentFit(rec *eval.Record, f LatentFit) {
	key := weak.Make(rec)
	latentFits.Store(key, f)
	runtime.AddCleanup(rec, func(k weak.Pointer[eval.Record]) { latentFits.Delete(k) }, key)
}

// LatentFitOf returns the LatentFit kept beside rec, if optimize made it.
func LatentFitOf(rec *eval.Record) (LatentFit, bool) {
	v, ok := latentFits.Load(weak.Make(rec))
	if !ok {
		return LatentFit{}, false
	}
	return v.(LatentFit), true
}
