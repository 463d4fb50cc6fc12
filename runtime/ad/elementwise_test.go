package ad

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"

	"github.com/kml-lang/kml/runtime/rng"
)

// scalarArith is the element-wise path Elementwise replaces: one scalar
// node per element, as the interpreter records a op b.
func scalarArith(t *Tape, op Arith, a, b Operand, i int) Var {
	at := func(o Operand) (Var, float64) {
		j := i
		if o.len() == 1 {
			j = 0
		}
		if o.Vs != nil {
			return o.Vs[j], 0
		}
		return 0, o.F[j]
	}
	x, c := at(a)
	y, d := at(b)
	switch {
	case a.Vs != nil && b.Vs != nil:
		return map[Arith]func(Var, Var) Var{'+': t.Add, '-': t.Sub, '*': t.Mul, '/': t.Div}[op](x, y)
	case a.Vs != nil:
		switch op {
		case '+':
			return t.AddConst(x, d)
		case '-':
			return t.AddConst(x, -d)
		case '*':
			return t.MulConst(x, d)
		}
		return t.MulConst(x, 1/d)
	}
	switch op {
	case '+':
		return t.AddConst(y, c)
	case '-':
		return t.AddConst(t.Neg(y), c)
	case '*':
		return t.MulConst(y, c)
	}
	return t.ConstDiv(c, y)
}

type ewCase struct {
	op         Arith
	n          int
	aAD, bAD   bool
	aOne, bOne bool
	aF, bF     []float64 // values of the operands
	scalar     bool
}

// record builds a op b from inputs q (the operands on the tape, a's then
// b's) and returns the inputs and Σ wᵢ·yᵢ² with a shared input reused as
// a broadcast operand, so adjoints meet.
func (c ewCase) record(t *Tape, q []float64) ([]Var, Var) {
	var in []Var
	operand := func(onTape bool, f []float64) Operand {
		if !onTape {
			return Operand{F: f}
		}
		vs := make([]Var, len(f))
		for i := range vs {
			vs[i] = t.Input(q[len(in)])
			in = append(in, vs[i])
		}
		return Operand{Vs: vs}
	}
	a := operand(c.aAD, c.aF)
	b := operand(c.bAD, c.bF)
	var y []Var
	if c.scalar {
		for i := 0; i < c.n; i++ {
			y = append(y, scalarArith(t, c.op, a, b, i))
		}
	} else {
		y = t.Elementwise(c.op, a, b, c.n)
	}
	terms := []Var{t.Input(0)}
	for i, v := range y {
		terms = append(terms, t.MulConst(t.PowConst(v, 2), float64(i+1)/3))
	}
	return in, t.Sum(terms)
}

func TestElementwiseMatchesScalarNodes(t *testing.T) {
	r := rng.New(15, rng.Stream(0x6577)) // "ew"
	tape := NewTape()
	for trial := 0; trial < 400; trial++ {
		c := ewCase{op: Arith("+-*/"[r.IntN(4)]), n: r.IntN(5), aAD: r.IntN(2) == 0, bAD: r.IntN(2) == 0,
			aOne: r.IntN(3) == 0, bOne: r.IntN(3) == 0}
		if !c.aAD && !c.bAD {
			c.bAD = true
		}
		fill := func(one bool) []float64 {
			k := c.n
			if one {
				k = 1
			}
			f := make([]float64, k)
			for i := range f {
				f[i] = 0.5 + r.Float64()
				if r.IntN(2) == 0 {
					f[i] = -f[i]
				}
			}
			return f
		}
		c.aF, c.bF = fill(c.aOne), fill(c.bOne)
		var q []float64
		if c.aAD {
			q = append(q, c.aF...)
		}
		if c.bAD {
			q = append(q, c.bF...)
		}
		run := func(scalar bool) (float64, []float64) {
			c.scalar = scalar
			tape.Reset()
			in, out := c.record(tape, q)
			g := make([]float64, len(in))
			tape.Gradient(g, out, in)
			return tape.Value(out), g
		}
		v, g := run(false)
		sv, sg := run(true)
		if v != sv {
			t.Errorf("%+v: value %v, scalar nodes %v", c, v, sv)
		}
		for i := range g {
			if g[i] != sg[i] {
				t.Errorf("%+v: gradient %v, scalar nodes %v", c, g, sg)
				break
			}
		}
		if len(q) == 0 {
			continue
		}
		want := fd.Gradient(nil, func(q []float64) float64 {
			tp := NewTape()
			c.scalar = false
			_, o := c.record(tp, q)
			return tp.Value(o)
		}, q, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range g {
			if math.Abs(g[i]-want[i]) > 1e-5*math.Max(1, math.Abs(want[i])) {
				t.Errorf("%+v: gradient %v, finite differences %v", c, g, want)
				break
			}
		}
	}
}

// backwardPerElement is backwardFast as it was before its loops were
// specialised: the operation and the operands' kinds tested per element.
func backwardPerElement(e *elementwise, t *Tape, out, adj []float64) {
	val := t.val
	av, bv, af, bf := e.a.Vs, e.b.Vs, e.a.F, e.b.F
	stride := func(n int) int {
		if n == 1 {
			return 0
		}
		return 1
	}
	sa, sb := stride(e.a.len()), stride(e.b.len())
	for i := len(out) - 1; i >= 0; i-- {
		g := out[i]
		if g == 0 {
			continue
		}
		switch e.op {
		case '+':
			if av != nil {
				adj[av[i*sa]] += g
			}
			if bv != nil {
				adj[bv[i*sb]] += g
			}
		case '-':
			if av != nil {
				adj[av[i*sa]] += g
			}
			if bv != nil {
				adj[bv[i*sb]] += -g
			}
		case '*':
			var x, z float64
			if av != nil {
				x = val[av[i*sa]]
			} else {
				x = af[i*sa]
			}
			if bv != nil {
				z = val[bv[i*sb]]
			} else {
				z = bf[i*sb]
			}
			if av != nil {
				adj[av[i*sa]] += g * z
			}
			if bv != nil {
				adj[bv[i*sb]] += g * x
			}
		}
	}
}

// backwardFast's specialised loops add the same adjoints in the same order
// as the per-element loop, to the bit: operands that share nodes (so the
// order of a's and b's contributions matters), broadcast operands, zero,
// signed-zero and non-finite adjoints and values.
func TestElementwiseBackwardFastSameBits(t *testing.T) {
	r := rng.New(17, rng.Stream(0x6266)) // "bf"
	odd := []float64{0, math.Copysign(0, -1), math.Inf(1), math.NaN(), 1e308}
	num := func() float64 {
		if r.IntN(8) == 0 {
			return odd[r.IntN(len(odd))]
		}
		return r.NormFloat64()
	}
	for trial := 0; trial < 2000; trial++ {
		tape := NewTape()
		pool := make([]Var, 1+r.IntN(4))
		for i := range pool {
			pool[i] = tape.Input(num())
		}
		n := 1 + r.IntN(6)
		operand := func() Operand {
			k := n
			if r.IntN(3) == 0 {
				k = 1
			}
			if r.IntN(3) == 0 {
				f := make([]float64, k)
				for i := range f {
					f[i] = num()
				}
				return Operand{F: f}
			}
			vs := make([]Var, k)
			for i := range vs {
				vs[i] = pool[r.IntN(len(pool))]
			}
			return Operand{Vs: vs}
		}
		a, b := operand(), operand()
		if a.Vs == nil && b.Vs == nil {
			b = Operand{Vs: []Var{pool[0]}}
		}
		e := &elementwise{op: Arith("+-*"[r.IntN(3)]), a: a, b: b}
		out := make([]float64, n)
		for i := range out {
			out[i] = num()
		}
		adj1 := make([]float64, len(pool))
		for i := range adj1 {
			adj1[i] = num()
		}
		adj2 := append([]float64(nil), adj1...)
		backwardPerElement(e, tape, out, adj1)
		e.backwardFast(tape, out, adj2)
		for i := range adj1 {
			if math.Float64bits(adj1[i]) != math.Float64bits(adj2[i]) && !(math.IsNaN(adj1[i]) && math.IsNaN(adj2[i])) {
				t.Fatalf("trial %d, op %c, a %+v, b %+v, out %v: adjoints %v, per element %v", trial, e.op, a, b, out, adj2, adj1)
			}
		}
	}
}
