package ad

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/floats"
)

// f records a function of three inputs that uses every operation, and returns
// its value node.
func record(t *Tape, x []float64) ([]Var, Var) {
	a, b, c := t.Input(x[0]), t.Input(x[1]), t.Input(x[2])
	s := t.Add(t.Mul(a, b), t.Sub(c, a))             // ab + c − a
	q := t.Div(t.Exp(t.MulConst(a, 0.3)), t.Sqrt(b)) // e^{0.3a}/√b
	r := t.Pow(b, t.AddConst(c, 0.5))                // b^(c+0.5)
	u := t.Log(t.PowConst(b, 3))                     // 3 log b
	w := t.Neg(t.ConstDiv(2, t.ConstPow(1.7, c)))    // −2/1.7^c
	v := t.PowConst(a, 2)
	out := t.Sum([]Var{s, q, r, u, w, v})
	return []Var{a, b, c}, t.Node(t.Value(out)*t.Value(out), []Var{out}, []float64{2 * t.Value(out)})
}

func TestGradientMatchesFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tape := NewTape()
	for trial := 0; trial < 20; trial++ {
		x := []float64{rng.NormFloat64(), 0.5 + rng.Float64()*2, rng.NormFloat64()}
		tape.Reset()
		in, out := record(tape, x)
		got := make([]float64, 3)
		tape.Gradient(got, out, in)
		want := fd.Gradient(nil, func(x []float64) float64 {
			tp := NewTape()
			_, o := record(tp, x)
			return tp.Value(o)
		}, x, &fd.Settings{Formula: fd.Central})
		if !floats.EqualApprox(got, want, 1e-5*math.Max(1, floats.Norm(want, math.Inf(1)))) {
			t.Errorf("x=%v: gradient %v, finite differences %v", x, got, want)
		}
	}
}

func TestUnusedInputHasZeroGradient(t *testing.T) {
	tape := NewTape()
	a := tape.Input(2)
	b := tape.Input(3)
	out := tape.Exp(a)
	g := make([]float64, 2)
	tape.Gradient(g, out, []Var{a, b})
	if g[0] != math.Exp(2) || g[1] != 0 {
		t.Errorf("gradient %v, want [e² 0]", g)
	}
}

// A node filled in place by Open is the node Node records from lists.
func TestOpenIsNode(t *testing.T) {
	tape := NewTape()
	a, b := tape.Input(2), tape.Input(-3)
	v, par, d := tape.Open(3)
	par[0], d[0] = a, 4
	par[1], d[1] = b, 5
	par[2], d[2] = a, -1
	tape.SetValue(v, 7)
	w := tape.Node(7, []Var{a, b, a}, []float64{4, 5, -1})
	g, h := make([]float64, 2), make([]float64, 2)
	tape.Gradient(g, v, []Var{a, b})
	tape.Gradient(h, w, []Var{a, b})
	if tape.Value(v) != 7 || g[0] != 3 || g[1] != 5 || g[0] != h[0] || g[1] != h[1] {
		t.Errorf("Open: value %v, gradient %v; Node: %v", tape.Value(v), g, h)
	}
}

// A node recorded by Func has the value and gradient its function gives,
// the same as the node recorded by Node from the same numbers.
func TestFuncMatchesNode(t *testing.T) {
	hyp := func(x, d []float64) float64 { // √(x₀² + x₁²)
		r := math.Hypot(x[0], x[1])
		d[0], d[1] = x[0]/r, x[1]/r
		return r
	}
	tape := NewTape()
	a, b := tape.Input(3), tape.Input(-4)
	f := tape.Func([]Var{a, b}, hyp)
	out := tape.Mul(f, a)
	got := make([]float64, 2)
	tape.Gradient(got, out, []Var{a, b})

	ref := NewTape()
	ra, rb := ref.Input(3), ref.Input(-4)
	rn := ref.Node(5, []Var{ra, rb}, []float64{0.6, -0.8})
	rout := ref.Mul(rn, ra)
	want := make([]float64, 2)
	ref.Gradient(want, rout, []Var{ra, rb})
	if tape.Value(f) != 5 || tape.Value(out) != 15 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("Func: value %v, gradient %v; Node: gradient %v", tape.Value(out), got, want)
	}
	if len(tape.fns) != 1 || tape.fns[0].v != f {
		t.Fatalf("Func must keep its function, got %d", len(tape.fns))
	}
	tape.Reset()
	if len(tape.fns) != 0 {
		t.Fatal("Reset must drop the functions")
	}
}

// ConstSub is AddConst(Neg(x), c) in one node: the same value and
// derivative, to the bit, signed zeros included.
func TestConstSubIsNegAddConst(t *testing.T) {
	for _, c := range []float64{0, math.Copysign(0, -1), 1.5, -3.25, 1e300} {
		for _, x := range []float64{0, math.Copysign(0, -1), 0.1, -7.5, 1e-310, math.Inf(1)} {
			a, b := NewTape(), NewTape()
			xa, xb := a.Input(x), b.Input(x)
			va, vb := a.ConstSub(c, xa), b.AddConst(b.Neg(xb), c)
			ga, gb := make([]float64, 1), make([]float64, 1)
			a.Gradient(ga, va, []Var{xa})
			b.Gradient(gb, vb, []Var{xb})
			if math.Float64bits(a.Peek(va)) != math.Float64bits(b.Peek(vb)) || math.Float64bits(ga[0]) != math.Float64bits(gb[0]) {
				t.Errorf("c = %v, x = %v: ConstSub %v (d %v), AddConst(Neg) %v (d %v)", c, x, a.Peek(va), ga[0], b.Peek(vb), gb[0])
			}
		}
	}
}

// The reverse sweep stops above the leading inputs (Tape.lead): the
// gradient of an input, and of expressions over inputs recorded before and
// after other operations, is the same as with the lead ignored.
func TestGradientAboveLeadingInputs(t *testing.T) {
	tp := NewTape()
	a, b := tp.Input(2), tp.Input(3)
	ab := tp.Mul(a, b)
	c := tp.Input(5) // after an operation: not leading
	k := tp.Node(7, nil, nil)
	out := tp.Add(tp.Mul(ab, c), tp.MulConst(k, 1))
	if tp.lead != 2 {
		t.Fatalf("lead %d, want 2", tp.lead)
	}
	g := make([]float64, 4)
	tp.Gradient(g, out, []Var{a, b, c, k})
	if want := []float64{15, 10, 6, 1}; !slices.Equal(g, want) {
		t.Errorf("gradient %v, want %v", g, want)
	}
	tp.Gradient(g, b, []Var{a, b, c, k})
	if want := []float64{0, 1, 0, 0}; !slices.Equal(g, want) {
		t.Errorf("gradient of an input %v, want %v", g, want)
	}
	// With the lead ignored the sweep gives the same numbers.
	lead := tp.lead
	tp.lead = 0
	h := make([]float64, 4)
	tp.Gradient(h, out, []Var{a, b, c, k})
	tp.lead = lead
	tp.Gradient(g, out, []Var{a, b, c, k})
	if !slices.Equal(g, h) {
		t.Errorf("gradient %v, without the lead %v", g, h)
	}
	tp.Reset()
	if tp.lead != 0 {
		t.Errorf("lead %d after Reset", tp.lead)
	}
}
