package dists

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
	"github.com/kml-lang/kml/runtime/rng"
)

// A mixture observed at many points sums in one call (sumGrad) with the
// value and gradient of the point-by-point loop it replaces, up to the
// order of floating-point sums, with data or parameters as the points and
// with no points at all.
func TestSumGradMatchesGenericLoop(t *testing.T) {
	r := rng.New(15, rng.Stream(0x6d6978)) // "mix"
	nrm, _ := dist.Lookup("normal")
	lap, _ := dist.Lookup("laplace")
	mix := dist.NewMixture([]dist.Family{nrm, lap})
	tape := ad.NewTape()
	for trial := 0; trial < 50; trial++ {
		n := r.IntN(8)
		xAD := r.IntN(2) == 0
		q := []float64{0.1 + 0.8*r.Float64(), r.NormFloat64(), 0.5 + r.Float64(), r.NormFloat64(), 0.5 + r.Float64()}
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = 2 * r.NormFloat64()
		}
		run := func(generic bool) (float64, []float64) {
			tape.Reset()
			in := make([]ad.Var, 0, len(q)+n)
			for _, v := range q {
				in = append(in, tape.Input(v))
			}
			w := &eval.ADNum{T: tape, V: in[0]}
			params := []eval.Value{w, &eval.ADNum{T: tape, V: tape.AddConst(tape.Neg(in[0]), 1)}}
			for _, v := range in[1:] {
				params = append(params, &eval.ADNum{T: tape, V: v})
			}
			var x eval.Value = &eval.Vec{Data: xs}
			if xAD {
				vs := make([]ad.Var, n)
				for i := range vs {
					vs[i] = tape.Input(xs[i])
					in = append(in, vs[i])
				}
				x = &eval.ADVec{T: tape, Vs: vs}
			}
			f := mix
			if generic {
				f = renamed{mix}
			}
			lp, err := (&DistVal{Family: f, Params: params}).LogDensity(tape, x, "y")
			if err != nil {
				t.Fatal(err)
			}
			g := make([]float64, len(in))
			tape.Gradient(g, lp.(*eval.ADNum).V, in)
			return lp.(*eval.ADNum).Value(), g
		}
		v, g := run(false)
		gv, gg := run(true)
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
		if !near(v, gv) {
			t.Errorf("n=%d x on tape %v: value %v, generic loop %v", n, xAD, v, gv)
		}
		for i := range g {
			if !near(g[i], gg[i]) {
				t.Errorf("n=%d x on tape %v: gradient %v, generic loop %v", n, xAD, g, gg)
				break
			}
		}
	}
}
