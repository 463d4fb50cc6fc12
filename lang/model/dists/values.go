package dists

import (
	"slices"

	"github.com/kml-lang/kml/lang/eval"
)

// paramLen is the number of values a distribution parameter holds.
func paramLen(p eval.Value) int {
	switch p := p.(type) {
	case *eval.Vec:
		return len(p.Data)
	case *eval.ADVec:
		return len(p.Vs)
	}
	return 1
}

// Numbers are a number's or a vector's values (on the tape or not), and
// whether it is a vector; ok is false for any other value.
func Numbers(v eval.Value) (xs []float64, vec, ok bool) {
	switch v := v.(type) {
	case eval.Num:
		return []float64{float64(v)}, false, true
	case *eval.ADNum:
		return []float64{v.Value()}, false, true
	case *eval.Vec:
		return slices.Clone(v.Data), true, true
	case *eval.ADVec:
		xs := make([]float64, len(v.Vs))
		for i, n := range v.Vs {
			xs[i] = v.T.Value(n)
		}
		return xs, true, true
	}
	return nil, false, false
}
