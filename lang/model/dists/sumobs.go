package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// sumGrad is logDensity on a tape for a family that sums its log density
// over many points at once (dist.SumGrader: a mixture) when every
// parameter is one number: one call for all the points instead of one per
// point, and one Func node (replayable). ok is false
// where the generic loop must run: another family, vector parameters,
// nothing on the tape, or a point it has to report.
func (d *DistVal) sumGrad(t *ad.Tape, xs obsElems) (v eval.Value, ok bool) {
	sg, ok := d.Family.(dist.SumGrader)
	if !ok {
		return nil, false
	}
	p := make([]float64, len(d.Params))
	n := xs.len()
	var parents []ad.Var
	if xs.t != nil {
		parents = append(parents, xs.vs...)
	}
	for j, par := range d.Params {
		switch par := par.(type) {
		case eval.Num:
			p[j] = float64(par)
		case *eval.ADNum:
			parents = append(parents, par.V)
		default:
			return nil, false
		}
	}
	if len(parents) == 0 {
		return nil, false
	}
	dp := make([]float64, len(p))
	node := t.Func(parents, func(vals, dd []float64) float64 {
		// vals and dd are x's (when on the tape), then the number
		// parameters'.
		x, dx, k := xs.f, []float64(nil), 0
		if xs.t != nil {
			x, dx, k = vals[:n], dd[:n], n
		}
		k0 := k
		for j, par := range d.Params {
			if _, ok := par.(*eval.ADNum); ok {
				p[j] = vals[k]
				k++
			}
		}
		if d.Family.Check(p) != nil {
			return math.NaN() // the generic loop reports it
		}
		total := sg.LogProbGradSum(dp, dx, x, p)
		if math.IsInf(total, 0) || math.IsNaN(total) {
			return math.NaN()
		}
		k = k0
		for j, par := range d.Params {
			if _, ok := par.(*eval.ADNum); ok {
				dd[k] = dp[j]
				k++
			}
		}
		return total
	})
	if math.IsNaN(t.Peek(node)) {
		// The node stays on the tape unused: nothing refers to it.
		return nil, false
	}
	return &eval.ADNum{T: t, V: node}, true
}
