package ad

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// randomProgram records a program whose shape is fixed by seed and whose
// values come from x: every scalar kind, Func nodes, and vector operations
// (MatVec, Elementwise with broadcast, constant and empty operands).
func randomProgram(t *Tape, seed uint64, x []float64) ([]Var, Var) {
	r := rand.New(rand.NewPCG(seed, 77))
	in := make([]Var, len(x))
	for i, v := range x {
		in[i] = t.Input(v)
	}
	pool := append([]Var{t.Input(0.75)}, in...) // a constant node too
	pick := func() Var { return pool[r.IntN(len(pool))] }
	pos := func(a Var) Var { return t.AddConst(t.Exp(t.MulConst(a, 0.2)), 0.1) } // > 0
	for range 60 {
		var v Var
		switch r.IntN(20) {
		case 0:
			v = t.Add(pick(), pick())
		case 1:
			v = t.Sub(pick(), pick())
		case 2:
			v = t.Mul(pick(), t.MulConst(pick(), 0.5))
		case 3:
			v = t.Div(pick(), pos(pick()))
		case 4:
			v = t.Pow(pos(pick()), t.MulConst(pick(), 0.3))
		case 5:
			v = t.AddConst(pick(), r.NormFloat64())
		case 6:
			v = t.MulConst(pick(), r.NormFloat64())
		case 7:
			v = t.ConstDiv(r.NormFloat64(), pos(pick()))
		case 8:
			v = t.PowConst(pos(pick()), []float64{2, 0.5, -1.3, 3}[r.IntN(4)])
		case 9:
			v = t.ConstPow(0.5+r.Float64(), t.MulConst(pick(), 0.3))
		case 10:
			v = t.Neg(pick())
		case 19:
			v = t.ConstSub(r.NormFloat64(), pick())
		case 11:
			v = t.Exp(t.MulConst(pick(), 0.1))
		case 12:
			v = t.Log(pos(pick()))
		case 13:
			v = t.Sqrt(pos(pick()))
		case 14:
			v = t.Sum([]Var{pick(), pick(), pick()})
		case 15:
			c := r.NormFloat64()
			v = t.Func([]Var{pick(), pick()}, func(x, d []float64) float64 {
				d[0], d[1] = math.Cos(x[0])*x[1], math.Sin(x[0])
				return math.Sin(x[0])*x[1] + c
			})
		case 16, 17:
			rows, cols := r.IntN(4), r.IntN(4)
			if r.IntN(2) == 0 {
				rows, cols = cols, rows // empty sometimes
			}
			a := make([]float64, rows*cols)
			for i := range a {
				a[i] = r.NormFloat64()
			}
			trans := r.IntN(2) == 0
			m := cols
			if trans {
				m = rows
			}
			xs := make([]Var, m)
			for i := range xs {
				xs[i] = pick()
			}
			pool = append(pool, t.MatVec(trans, a, rows, cols, xs)...)
			continue
		case 18:
			n := r.IntN(4)
			operand := func(tape bool) Operand {
				k := n
				if r.IntN(3) == 0 {
					k = 1
				}
				if tape {
					vs := make([]Var, k)
					for i := range vs {
						vs[i] = pick()
					}
					return Operand{Vs: vs}
				}
				f := make([]float64, k)
				for i := range f {
					f[i] = 0.5 + r.Float64()
				}
				return Operand{F: f}
			}
			op := Arith("+-*/"[r.IntN(4)])
			a := operand(true)
			b := operand(r.IntN(2) == 0)
			if op == '/' && b.Vs != nil {
				for i, v := range b.Vs {
					b.Vs[i] = pos(v)
				}
			}
			pool = append(pool, t.Elementwise(op, a, b, n)...)
			continue
		}
		pool = append(pool, v)
	}
	return in, t.Sum(pool)
}

// Replaying a recording at new inputs gives what recording afresh there
// gives, to the bit: the value of every node and the gradient.
func TestReplayIsRecording(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	prog, fresh := NewTape(), NewTape()
	for seed := uint64(0); seed < 200; seed++ {
		x := make([]float64, 4)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		prog.Reset()
		in, out := randomProgram(prog, seed, x)
		if ok, why := prog.Replayable(); !ok {
			t.Fatalf("seed %d: a program of tape operations is not replayable: %v", seed, why)
		}
		for range 3 {
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			if !prog.Replay(in, x) {
				t.Fatalf("seed %d: Replay reports a Func that failed", seed)
			}
			fresh.Reset()
			fin, fout := randomProgram(fresh, seed, x)
			if fout != out || fresh.Len() != prog.Len() {
				t.Fatalf("seed %d: programs of different shapes", seed)
			}
			for i := range prog.val {
				if math.Float64bits(prog.val[i]) != math.Float64bits(fresh.val[i]) {
					t.Fatalf("seed %d: node %d replayed %v, recorded %v", seed, i, prog.val[i], fresh.val[i])
				}
			}
			g, h := make([]float64, len(x)), make([]float64, len(x))
			prog.Gradient(g, out, in)
			fresh.Gradient(h, fout, fin)
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
					t.Fatalf("seed %d: gradient %v replayed, %v recorded", seed, g, h)
				}
			}
		}
	}
}

// A node the tape cannot compute again, or a value read out by the caller,
// makes the recording not replayable, and Replayable says which came first
// and where; Reset forgets it.
func TestNotReplayable(t *testing.T) {
	cases := map[string]struct {
		f     func(t *Tape, a Var) Var
		cause Cause
	}{
		"Node":  {func(t *Tape, a Var) Var { return t.Node(1, []Var{a}, []float64{2}) }, OpaqueNode},
		"Open":  {func(t *Tape, a Var) Var { v, _, _ := t.Open(1); return v }, OpenNode},
		"Value": {func(t *Tape, a Var) Var { t.Value(a); return a }, ValueRead},
		"Taint": {func(t *Tape, a Var) Var { t.Taint(); return -1 }, Tainted},
	}
	for _, name := range []string{"Node", "Open", "Value", "Taint"} {
		tape := NewTape()
		a := tape.Input(1)
		tape.Exp(a)
		tape.Peek(a)
		tape.Node(3, nil, nil) // a constant
		if ok, why := tape.Replayable(); !ok || why != nil {
			t.Fatalf("%s: replayable operations reported not replayable (%v)", name, why)
		}
		c := cases[name]
		v := c.f(tape, a)
		tape.Value(a) // a later read does not replace the first reason
		ok, why := tape.Replayable()
		if ok || why == nil {
			t.Fatalf("%s: reported replayable", name)
		}
		if why.Cause != c.cause || why.Var != v {
			t.Errorf("%s: reason %+v, want cause %d var %d", name, why, c.cause, v)
		}
		if !strings.HasPrefix(why.Where, "runtime/ad/replay_test.go:") {
			t.Errorf("%s: reported at %q, want this file", name, why.Where)
		}
		tape.Reset()
		tape.Exp(tape.Input(2))
		if ok, why := tape.Replayable(); !ok {
			t.Errorf("%s: Reset does not make the tape replayable again (%v)", name, why)
		}
	}
}

// Ancestors follows scalar parents and vector operations back to the
// inputs.
func TestAncestors(t *testing.T) {
	tape := NewTape()
	a, b, c := tape.Input(1), tape.Input(2), tape.Input(3)
	m := tape.MatVec(false, []float64{1, 2}, 1, 2, []Var{a, b})
	s := tape.Exp(tape.Add(m[0], a))
	if got := tape.Ancestors(s); !slices.Equal(got, []Var{a, b}) {
		t.Errorf("Ancestors = %v, want %v", got, []Var{a, b})
	}
	if got := tape.Ancestors(c); !slices.Equal(got, []Var{c}) {
		t.Errorf("Ancestors of an input = %v", got)
	}
}

// A Func returning NaN at the new point (its recording's checks fail
// there) makes Replay report it.
func TestReplayReportsFailedFunc(t *testing.T) {
	tape := NewTape()
	a := tape.Input(1)
	out := tape.Func([]Var{a}, func(x, d []float64) float64 {
		if x[0] <= 0 {
			return math.NaN()
		}
		d[0] = 1 / x[0]
		return math.Log(x[0])
	})
	if !tape.Replay([]Var{a}, []float64{2}) || tape.Peek(out) != math.Log(2) {
		t.Fatalf("replay at 2: %v", tape.Peek(out))
	}
	if tape.Replay([]Var{a}, []float64{-1}) {
		t.Error("a NaN Func node is not reported")
	}
}

// A Guard that holds at the new point leaves the replay good and the
// recording replayable; one whose answer changes makes Replay report it.
func TestGuard(t *testing.T) {
	tape := NewTape()
	a := tape.Input(1)
	b := tape.Input(2)
	positive := func(x []float64) bool { return x[0] > 0 }
	if !tape.Guard([]Var{a}, positive) {
		t.Fatal("Guard: a > 0 at a = 1 reported false")
	}
	if tape.Guard([]Var{a, b}, func(x []float64) bool { return x[0] > x[1] }) {
		t.Fatal("Guard: a > b at 1, 2 reported true")
	}
	out := tape.Mul(a, b)
	if ok, why := tape.Replayable(); !ok {
		t.Fatalf("a tape with guards is not replayable: %v", why)
	}
	in := []Var{a, b}
	g := make([]float64, 2)
	if !tape.Replay(in, []float64{3, 4}) {
		t.Fatal("Replay fails where both guards give their recorded answers")
	}
	tape.Gradient(g, out, in)
	if tape.Peek(out) != 12 || g[0] != 4 || g[1] != 3 {
		t.Errorf("replay at (3, 4): %v, gradient %v", tape.Peek(out), g)
	}
	if tape.Replay(in, []float64{-1, 4}) {
		t.Error("Replay succeeds where a > 0 fails")
	}
	if tape.Replay(in, []float64{5, 4}) {
		t.Error("Replay succeeds where a > b, false at recording, holds")
	}
	if !tape.Replay(in, []float64{0.5, 4}) {
		t.Error("Replay fails back at a point where both guards hold again")
	}
}

// A Func whose parents are consecutive nodes in order is replayed on the
// tape's own values, any other on a copy; both give a fresh recording's
// value and gradient, and the function sees its parents' values in order.
func TestReplayFuncParents(t *testing.T) {
	for _, c := range []struct {
		pick  []int // parents, as indices of the inputs
		first int   // the fnNode's first, as an input index; −1 none
	}{
		{[]int{0, 1, 2, 3}, 0},
		{[]int{1, 2}, 1},
		{[]int{2}, 2},
		{[]int{0, 2}, -1},
		{[]int{1, 0}, -1},
		{[]int{3, 3}, -1},
		{nil, -1},
	} {
		record := func(tp *Tape, x []float64) ([]Var, Var) {
			in := make([]Var, len(x))
			for i := range x {
				in[i] = tp.Input(x[i])
			}
			parents := make([]Var, len(c.pick))
			for j, k := range c.pick {
				parents[j] = in[k]
			}
			// Σ (j+1)·x_j², the order visible in the weights.
			f := tp.Func(parents, func(x, d []float64) float64 {
				s := 0.0
				for j, v := range x {
					s += float64(j+1) * v * v
					d[j] = 2 * float64(j+1) * v
				}
				return s
			})
			return in, tp.Add(f, tp.Mul(in[0], in[3]))
		}
		tape := NewTape()
		in, out := record(tape, []float64{1, 2, 3, 4})
		want := Var(-1)
		if c.first >= 0 {
			want = in[c.first]
		}
		if got := tape.fns[0].first; got != want {
			t.Errorf("parents %v: first %d, want %d", c.pick, got, want)
		}
		x := []float64{0.5, -1.5, 2.25, 3}
		if !tape.Replay(in, x) {
			t.Fatalf("parents %v: replay failed", c.pick)
		}
		g, h := make([]float64, 4), make([]float64, 4)
		tape.Gradient(g, out, in)
		fresh := NewTape()
		fin, fout := record(fresh, x)
		fresh.Gradient(h, fout, fin)
		if tape.Peek(out) != fresh.Peek(fout) || !slices.Equal(g, h) {
			t.Errorf("parents %v: replay %v %v, fresh %v %v", c.pick, tape.Peek(out), g, fresh.Peek(fout), h)
		}
	}
}
