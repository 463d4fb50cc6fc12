package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomRecurrence records n steps of a recurrence whose body is fixed by
// seed: K scalar operations of every kind Loop folds, on the parameters
// (inputs), per-step constants, the step's own earlier nodes, the state
// and a node of the step before; the state is damped so that values stay
// finite. With fold, Loop folds the steps it can. It returns the inputs,
// the output (a sum over the states and some of their logs) and whether
// Loop folded.
func randomRecurrence(t *Tape, seed uint64, x []float64, n int, fold bool) ([]Var, Var, bool) {
	r := rand.New(rand.NewPCG(seed, 30))
	in := make([]Var, len(x))
	for i, v := range x {
		in[i] = t.Input(v)
	}
	type op struct {
		kind int
		a, b int // −1 − i: input i; 0..: a node of this step; 1000 + j: node j of the step before
		c    float64
	}
	k := 2 + r.IntN(6)
	body := make([]op, k)
	for j := range body {
		ref := func() int {
			switch u := r.IntN(4); {
			case u == 0 || j == 0:
				return -1 - r.IntN(len(x))
			case u == 1:
				return 1000 + r.IntN(k) // the step before (the state is its last node)
			default:
				return r.IntN(j)
			}
		}
		body[j] = op{kind: r.IntN(18), a: ref(), b: ref(), c: 0.5 + r.Float64()}
	}
	update := r.IntN(5)
	ys := make([]float64, n) // the per-step constants (GARCH's y_t)
	for i := range ys {
		ys[i] = r.NormFloat64()
	}
	ends := []int{t.Len()}
	var prev []Var
	var states []Var
	state := t.Input(0.3)
	for s := range n {
		step := make([]Var, 0, k+8)
		at := func(ref int) Var {
			switch {
			case ref < 0:
				return in[-1-ref]
			case ref >= 1000:
				if prev == nil {
					return state
				}
				return prev[ref-1000]
			}
			return step[ref]
		}
		pos := func(v Var) Var { return t.AddConst(t.Exp(t.MulConst(v, 0.1)), 0.1) }
		for _, o := range body {
			a, b := at(o.a), at(o.b)
			var v Var
			switch o.kind {
			case 0:
				v = t.Add(a, b)
			case 1:
				v = t.Sub(a, b)
			case 2:
				v = t.Mul(a, t.MulConst(b, 0.3))
			case 3:
				v = t.Div(a, pos(b))
			case 4:
				v = t.Pow(pos(a), t.MulConst(b, 0.1))
			case 5:
				v = t.AddConst(a, ys[s])
			case 6:
				v = t.MulConst(a, o.c)
			case 7:
				v = t.ConstDiv(o.c, pos(a))
			case 8:
				v = t.PowConst(t.MulConst(a, 0.3), 2)
			case 9:
				v = t.PowConst(pos(a), o.c)
			case 10:
				v = t.ConstPow(o.c, t.MulConst(a, 0.1))
			case 11:
				v = t.Neg(a)
			case 12:
				v = t.Exp(t.MulConst(a, 0.1))
			case 13:
				v = t.Log(pos(a))
			case 14:
				v = t.Sqrt(pos(a))
			case 16:
				v = t.Mul(t.MulConst(a, 0.5), b)
			case 17:
				v = t.Div(a, t.AddConst(t.PowConst(b, 2), 1))
			default:
				v = t.ConstSub(ys[s], a)
			}
			step = append(step, v)
		}
		// s_t = b·s_{t−1} + 0.1·(the body's last node, squashed), with b
		// a constant, a parameter in (0.5, 1.5) or one computed in the
		// step, the operands in either order.
		e := t.MulConst(t.Log(pos(step[len(step)-1])), 0.1)
		switch update {
		case 0:
			state = t.Add(t.MulConst(state, 0.5), e)
		case 1:
			state = t.Add(e, t.Mul(in[2], state))
		case 2:
			state = t.Add(t.Mul(state, in[2]), e)
		case 3:
			b := t.MulConst(in[2], 0.5)
			state = t.Add(e, t.Mul(state, b))
		default:
			state = t.Add(t.Mul(t.MulConst(in[2], 0.5), state), e)
		}
		step = append(step, state)
		// The body's references to "the step before" are to these
		// template positions.
		prev = step
		states = append(states, state)
		ends = append(ends, t.Len())
	}
	folded := false
	if fold {
		folded = t.Loop(ends)
	}
	terms := append([]Var(nil), states...)
	for i := 0; i < len(states); i += 3 {
		terms = append(terms, t.Log(t.AddConst(t.Exp(states[i]), 1)))
	}
	return in, t.Sum(terms), folded
}

// A folded recurrence computes every node as the steps did, to the bit,
// at recording and at replays elsewhere, and its gradient agrees to
// rounding (a parameter's adjoint is summed in another order when several
// template positions feed it).
func TestLoopIsTheSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 0x6c6f)) // "lo"
	folds, affines := 0, 0
	const seeds = 300
	for seed := range uint64(seeds) {
		x := []float64{r.NormFloat64(), r.NormFloat64(), 0.5 + r.Float64()} // x[2] is b
		n := 4 + r.IntN(30)
		plain, folded, general := NewTape(), NewTape(), NewTape()
		inP, outP, _ := randomRecurrence(plain, seed, x, n, false)
		inF, outF, did := randomRecurrence(folded, seed, x, n, true)
		// general is folded without the affine shortcut, which must
		// give its gradient to the bit.
		inG, outG, _ := randomRecurrence(general, seed, x, n, true)
		for _, r := range general.runs {
			if l, ok := r.op.(*loop); ok {
				l.affine = nil
			}
		}
		if did {
			folds++
			if folded.runs[len(folded.runs)-1].op.(*loop).affine != nil {
				affines++
			}
		}
		for trial := range 3 {
			if trial > 0 {
				for i := range x {
					x[i] += 0.3 * r.NormFloat64()
				}
				okP, okF := plain.Replay(inP, x), folded.Replay(inF, x)
				general.Replay(inG, x)
				if okP != okF {
					t.Fatalf("seed %d: replay ok %v plain, %v folded", seed, okP, okF)
				}
			}
			if plain.Len() != folded.Len() {
				t.Fatalf("seed %d: %d nodes plain, %d folded", seed, plain.Len(), folded.Len())
			}
			for i := range plain.val {
				if a, b := plain.val[i], folded.val[i]; math.Float64bits(a) != math.Float64bits(b) && !(math.IsNaN(a) && math.IsNaN(b)) {
					t.Fatalf("seed %d trial %d: node %d is %v plain, %v folded", seed, trial, i, a, b)
				}
			}
			if v := plain.Peek(outP); math.IsNaN(v) || math.IsInf(v, 0) {
				break
			}
			gP, gF, gG := make([]float64, len(x)), make([]float64, len(x)), make([]float64, len(x))
			plain.Gradient(gP, outP, inP)
			folded.Gradient(gF, outF, inF)
			general.Gradient(gG, outG, inG)
			for i := range gP {
				if math.Float64bits(gF[i]) != math.Float64bits(gG[i]) {
					t.Fatalf("seed %d trial %d: ∂/∂x%d is %v, %v without the affine shortcut", seed, trial, i, gF[i], gG[i])
				}
				if math.Abs(gP[i]-gF[i]) > 1e-12*math.Max(1, math.Abs(gP[i])) {
					t.Fatalf("seed %d trial %d: ∂/∂x%d is %v plain, %v folded", seed, trial, i, gP[i], gF[i])
				}
			}
		}
		if ok, why := folded.Replayable(); !ok {
			t.Fatalf("seed %d: folded recording not replayable: %v", seed, why)
		}
	}
	t.Logf("Loop folded %d of %d recurrences, %d of them affine", folds, seeds, affines)
	if folds < seeds/2 || affines < seeds/10 {
		t.Errorf("Loop folded %d of %d recurrences, %d of them affine", folds, seeds, affines)
	}
}

// garchLoop records GARCH(1,1)'s variance recursion over y and the normal
// log likelihood of y given it, as bench/stan/garch.kml's model does on the
// tape: inputs μ, ω, α, β.
func garchLoop(t *Tape, x, y []float64, fold bool) ([]Var, Var) {
	in, s2 := garchRecursion(t, x, y, fold)
	mu := in[0]
	var terms []Var
	for i, s := range s2 {
		z := t.Div(t.ConstSub(y[i+1], mu), t.Sqrt(s))
		terms = append(terms, t.Neg(t.Add(t.MulConst(t.PowConst(z, 2), 0.5), t.MulConst(t.Log(s), 0.5))))
	}
	return in, t.Sum(terms)
}

// garchRecursion records the variance recursion alone, folded or not.
func garchRecursion(t *Tape, x, y []float64, fold bool) ([]Var, []Var) {
	in := []Var{t.Input(x[0]), t.Input(x[1]), t.Input(x[2]), t.Input(x[3])}
	mu, omega, alpha, beta := in[0], in[1], in[2], in[3]
	ends := []int{-1}
	var s2 []Var
	v := 1.0
	for i := 0; i < len(y)-1; i++ {
		e := t.PowConst(t.ConstSub(y[i], mu), 2)
		var prev Var
		if i == 0 {
			prev = t.MulConst(beta, v)
		} else {
			prev = t.Mul(beta, s2[i-1])
		}
		s2 = append(s2, t.Add(t.Add(omega, t.Mul(alpha, e)), prev))
		ends = append(ends, t.Len())
	}
	if fold && !t.Loop(ends) {
		panic("garchRecursion: not folded")
	}
	return in, s2
}

func garchData(n int) []float64 {
	r := rand.New(rand.NewPCG(30, 0x6761)) // "ga"
	y := make([]float64, n)
	s2 := 1.0
	for i := range y {
		y[i] = math.Sqrt(s2) * r.NormFloat64()
		s2 = 0.2 + 0.3*y[i]*y[i] + 0.5*s2
	}
	return y
}

// The folded GARCH recursion's gradient is the unfolded one's to the bit
// (each parameter is fed by one template position) and agrees with
// central finite differences.
func TestLoopGARCHGradient(t *testing.T) {
	y := garchData(60)
	x := []float64{0.1, 0.3, 0.25, 0.5}
	plain, folded := NewTape(), NewTape()
	inP, outP := garchLoop(plain, x, y, false)
	inF, outF := garchLoop(folded, x, y, true)
	x2 := []float64{0.05, 0.35, 0.2, 0.6}
	plain.Replay(inP, x2)
	folded.Replay(inF, x2)
	gP, gF := make([]float64, 4), make([]float64, 4)
	plain.Gradient(gP, outP, inP)
	folded.Gradient(gF, outF, inF)
	f := func(x []float64) float64 {
		folded.Replay(inF, x)
		return folded.Peek(outF)
	}
	for i := range gP {
		if math.Float64bits(gP[i]) != math.Float64bits(gF[i]) {
			t.Errorf("∂/∂x%d: %v plain, %v folded", i, gP[i], gF[i])
		}
		const h = 1e-6
		xp, xm := append([]float64(nil), x2...), append([]float64(nil), x2...)
		xp[i] += h
		xm[i] -= h
		fd := (f(xp) - f(xm)) / (2 * h)
		if math.Abs(fd-gF[i]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("∂/∂x%d: %v, finite differences %v", i, gF[i], fd)
		}
	}
}

// Loop folds nothing when the steps are too few, are not the tape's last
// nodes, or differ in shape.
func TestLoopRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		rec  func(t *Tape) []int
	}{
		{"three steps", func(t *Tape) []int {
			a := t.Input(1)
			ends := []int{t.Len()}
			for range 3 {
				a = t.MulConst(a, 0.5)
				ends = append(ends, t.Len())
			}
			return ends
		}},
		{"a node after the steps", func(t *Tape) []int {
			a := t.Input(1)
			ends := []int{t.Len()}
			for range 6 {
				a = t.MulConst(a, 0.5)
				ends = append(ends, t.Len())
			}
			t.Neg(a)
			return ends
		}},
		{"a Func in the step", func(t *Tape) []int {
			a := t.Input(1)
			ends := []int{t.Len()}
			for range 6 {
				a = t.Func([]Var{a}, func(x, d []float64) float64 { d[0] = 2; return 2 * x[0] })
				ends = append(ends, t.Len())
			}
			return ends
		}},
		{"steps of other kinds", func(t *Tape) []int {
			a := t.Input(1)
			ends := []int{t.Len()}
			for i := range 6 {
				if i%2 == 0 {
					a = t.MulConst(a, 0.5)
				} else {
					a = t.AddConst(a, 0.5)
				}
				ends = append(ends, t.Len())
			}
			return ends
		}},
		{"a parent at another node each step", func(t *Tape) []int {
			a := t.Input(1)
			var xs []Var // at uneven gaps
			for i := range 6 {
				for range i % 3 {
					t.Input(0)
				}
				xs = append(xs, t.Input(float64(i)))
			}
			ends := []int{t.Len()}
			for i := range 6 {
				a = t.Mul(a, xs[i])
				ends = append(ends, t.Len())
			}
			return ends
		}},
	} {
		tp := NewTape()
		ends := c.rec(tp)
		if tp.Loop(ends) {
			t.Errorf("%s: folded", c.name)
		}
		if len(tp.runs) != 0 {
			t.Errorf("%s: %d runs recorded", c.name, len(tp.runs))
		}
	}
}

// BenchmarkLoopGARCH is one replay and gradient of GARCH(1,1)'s variance
// recursion on 200 points (the gradient of the variances' sum), folded by
// Loop or node by node.
func BenchmarkLoopGARCH(b *testing.B) {
	y := garchData(200)
	for _, fold := range []bool{false, true} {
		b.Run(fmt.Sprintf("fold=%v", fold), func(b *testing.B) {
			tp := NewTape()
			x := []float64{0.1, 0.3, 0.25, 0.5}
			in, s2 := garchRecursion(tp, x, y, fold)
			out := tp.Sum(s2)
			g := make([]float64, 4)
			for b.Loop() {
				tp.Replay(in, x)
				tp.Gradient(g, out, in)
			}
		})
	}
}
