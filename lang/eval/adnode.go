package eval

import "github.com/kml-lang/kml/runtime/ad"

// Node is a number computed from params with the given partial derivatives
// (one per param): a Num when no param depends on model parameters, else one
// tape node whose parents are the params on the tape. A builtin whose
// result has a closed-form gradient (a BKE pseudolikelihood, a kernel
// statistic) records it this way instead of building tape nodes itself.
func Node(value float64, params []Value, partials []float64) Value {
	var t *ad.Tape
	var parents []ad.Var
	var dp []float64
	for i, p := range params {
		if a, ok := p.(*ADNum); ok {
			t = a.T
			parents = append(parents, a.V)
			dp = append(dp, partials[i])
		}
	}
	if t == nil {
		return Num(value)
	}
	return &ADNum{T: t, V: t.Node(value, parents, dp)}
}
