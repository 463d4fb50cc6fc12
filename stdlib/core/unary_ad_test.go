package core_test

import (
	"context"
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// exp, log and sqrt of values on the tape are the tape's own operations:
// their values and derivatives are the closed forms, to the bit, and a
// replay at new inputs gives the closed forms there.
func TestUnaryTapeOps(t *testing.T) {
	in, _ := kmltest.Run(t, `let z = 1`)
	th := in.NewThread(context.Background())
	cases := []struct {
		fn    string
		f, df func(float64) float64
	}{
		{"exp", math.Exp, math.Exp},
		{"log", math.Log, func(x float64) float64 { return 1 / x }},
		{"sqrt", math.Sqrt, func(x float64) float64 { return 0.5 / math.Sqrt(x) }},
	}
	for _, c := range cases {
		tp := ad.NewTape()
		xs := []float64{0.3, 1.7, 4}
		in := make([]ad.Var, len(xs))
		for i, x := range xs {
			in[i] = tp.Input(x)
		}
		b, _ := th.Interp().Registry().Get(c.fn)
		v, err := th.CallValue(ast.Pos{}, b, &eval.ADVec{T: tp, Vs: in})
		if err != nil {
			t.Fatal(err)
		}
		out := tp.Sum(v.(*eval.ADVec).Vs)
		if ok, why := tp.Replayable(); !ok {
			t.Fatalf("%s: not replayable: %v", c.fn, why)
		}
		for _, pt := range [][]float64{xs, {2.5, 0.01, 9}} {
			if !tp.Replay(in, pt) {
				t.Fatalf("%s: replay failed", c.fn)
			}
			g := make([]float64, len(pt))
			tp.Gradient(g, out, in)
			for i, x := range pt {
				if y := tp.Peek(v.(*eval.ADVec).Vs[i]); math.Float64bits(y) != math.Float64bits(c.f(x)) {
					t.Errorf("%s(%v) = %v, want %v", c.fn, x, y, c.f(x))
				}
				if math.Float64bits(g[i]) != math.Float64bits(c.df(x)) {
					t.Errorf("%s'(%v) = %v, want %v", c.fn, x, g[i], c.df(x))
				}
			}
		}
	}
}
