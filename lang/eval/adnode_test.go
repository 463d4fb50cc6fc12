package eval

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/ad"
)

// fnode is x₀²·x₁ + sin(x₂) with its partials.
func fnode(x, d []float64) float64 {
	d[0] = 2 * x[0] * x[1]
	d[1] = x[0] * x[0]
	d[2] = math.Cos(x[2])
	return x[0]*x[0]*x[1] + math.Sin(x[2])
}

// record puts a and c on a fresh tape, with the middle param the constant
// 1.7, and returns the FuncNode of the three.
func record(tp *ad.Tape, a, c float64) (in []ad.Var, out ad.Var) {
	x, z := tp.Input(a), tp.Input(c)
	v := FuncNode([]Value{&ADNum{T: tp, V: x}, Num(1.7), &ADNum{T: tp, V: z}}, fnode)
	return []ad.Var{x, z}, v.(*ADNum).V
}

// FuncNode's gradient in its tape params matches finite differences, its
// constant param is seen at its value, it replays to the bit what a fresh
// recording gives, and the recording stays replayable (unlike Node's).
func TestFuncNode(t *testing.T) {
	if v := FuncNode([]Value{Num(2), Num(3), Num(0)}, fnode); v != Num(12) {
		t.Fatalf("FuncNode of numbers = %v, want 12", v)
	}
	tp := ad.NewTape()
	in, out := record(tp, 0.8, -0.3)
	if ok, why := tp.Replayable(); !ok {
		t.Fatalf("FuncNode made the tape not replayable: %v", why)
	}
	val := func(a, c float64) float64 { return a*a*1.7 + math.Sin(c) }
	if got, want := tp.Peek(out), val(0.8, -0.3); got != want {
		t.Fatalf("value %v, want %v", got, want)
	}
	g := make([]float64, 2)
	tp.Gradient(g, out, in)
	const h = 1e-6
	fd := []float64{(val(0.8+h, -0.3) - val(0.8-h, -0.3)) / (2 * h), (val(0.8, -0.3+h) - val(0.8, -0.3-h)) / (2 * h)}
	for i := range g {
		if math.Abs(g[i]-fd[i]) > 1e-6 {
			t.Errorf("gradient %v, finite differences %v", g, fd)
		}
	}
	for _, p := range [][]float64{{-1.2, 0.4}, {2.5, 3}} {
		if !tp.Replay(in, p) {
			t.Fatalf("replay at %v failed", p)
		}
		tp.Gradient(g, out, in)
		fresh := ad.NewTape()
		fin, fout := record(fresh, p[0], p[1])
		h := make([]float64, 2)
		fresh.Gradient(h, fout, fin)
		if math.Float64bits(tp.Peek(out)) != math.Float64bits(fresh.Peek(fout)) || g[0] != h[0] || g[1] != h[1] {
			t.Errorf("at %v: replayed %v %v, recorded %v %v", p, tp.Peek(out), g, fresh.Peek(fout), h)
		}
	}
	// The recording of a FuncNode stays replayable.
	if ok, why := tp.Replayable(); !ok {
		t.Errorf("FuncNode: not replayable (%v)", why)
	}
}
