package model

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// sumGrad is logDensity on a tape for a family that sums its log density
// over many points at once (dist.SumGrader: a mixture) when every
// parameter is one number: one call for all the points instead of one per
// point, and one node whose partials are written in place. ok is false
// where the generic loop must run: another family, vector parameters,
// nothing on the tape, or a point it has to report.
func (d *DistVal) sumGrad(t *ad.Tape, xs obsElems) (v eval.Value, ok bool) {
	sg, ok := d.Family.(dist.SumGrader)
	if !ok {
		return nil, false
	}
	p := make([]float64, len(d.Params))
	nAD := 0
	for j, par := range d.Params {
		switch par := par.(type) {
		case eval.Num:
			p[j] = float64(par)
		case *eval.ADNum:
			p[j] = par.Value()
			nAD++
		default:
			return nil, false
		}
	}
	if xs.t == nil && nAD == 0 || d.Family.Check(p) != nil {
		return nil, false
	}
	n := xs.len()
	x, dx := xs.f, []float64(nil)
	if xs.t != nil {
		x, dx = make([]float64, n), make([]float64, n)
		for i, v := range xs.vs {
			x[i] = t.Value(v)
		}
	}
	dp := make([]float64, len(p))
	total := sg.LogProbGradSum(dp, dx, x, p)
	if math.IsInf(total, 0) || math.IsNaN(total) {
		return nil, false
	}
	np := nAD
	if xs.t != nil {
		np += n
	}
	node, par, d2 := t.Open(np)
	k := 0
	if xs.t != nil {
		copy(par, xs.vs)
		copy(d2, dx)
		k = n
	}
	for j, pv := range d.Params {
		if a, ok := pv.(*eval.ADNum); ok {
			par[k], d2[k] = a.V, dp[j]
			k++
		}
	}
	t.SetValue(node, total)
	return &eval.ADNum{T: t, V: node}, true
}
