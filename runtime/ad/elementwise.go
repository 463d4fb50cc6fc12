package ad

// Operand is one side of an elementwise operation: nodes (Vs) or constants
// (F), either n of them or one broadcast over all n results.
type Operand struct {
	Vs []Var
	F  []float64
}

func (o Operand) len() int {
	if o.Vs != nil {
		return len(o.Vs)
	}
	return len(o.F)
}

// value is element i's value, the single element when o is broadcast.
func (o Operand) value(t *Tape, i int) float64 {
	if o.Vs != nil {
		if len(o.Vs) == 1 {
			return t.val[o.Vs[0]]
		}
		return t.val[o.Vs[i]]
	}
	if len(o.F) == 1 {
		return o.F[0]
	}
	return o.F[i]
}

// Arith is an elementwise operation: '+', '-', '*' or '/'.
type Arith byte

// elementwise is y = a op b elementwise, with the first result's node.
type elementwise struct {
	op    Arith
	a, b  Operand
	first Var
}

// Elementwise records y = a op b for n elements (op '+', '-', '*' or '/'),
// an operand of one element applying to all, and returns y's nodes. It is
// one vector operation where the scalar operations would be n nodes; its
// values and adjoints are theirs bit for bit (a constant divisor is applied
// as a multiplication by its reciprocal, as MulConst(x, 1/c) is).
func (t *Tape) Elementwise(op Arith, a, b Operand, n int) []Var {
	for _, o := range []Operand{a, b} {
		if k := o.len(); k != 1 && k != n {
			panic("ad: Elementwise needs operands of one element or n")
		}
	}
	if a.Vs == nil && b.Vs == nil {
		panic("ad: Elementwise needs an operand on the tape")
	}
	switch op {
	case '+', '-', '*', '/':
	default:
		panic("ad: Elementwise of an unknown operation")
	}
	e := &elementwise{op: op, a: a, b: b}
	y, first := t.results(n, e)
	e.first = first
	e.forward(t, y)
	return seq(first, n)
}

func (e *elementwise) operands() [][]Var { return [][]Var{e.a.Vs, e.b.Vs} }

func (e *elementwise) forward(t *Tape, y []float64) {
	a, b := e.a, e.b
	if a.Vs != nil && b.Vs != nil && e.op != '/' {
		// Both on the tape: the elements by stride, the operation
		// switched on once.
		val := t.val
		sa, sb := 1, 1
		if len(a.Vs) == 1 {
			sa = 0
		}
		if len(b.Vs) == 1 {
			sb = 0
		}
		switch e.op {
		case '+':
			for i := range y {
				y[i] = val[a.Vs[i*sa]] + val[b.Vs[i*sb]]
			}
		case '-':
			for i := range y {
				y[i] = val[a.Vs[i*sa]] - val[b.Vs[i*sb]]
			}
		case '*':
			for i := range y {
				y[i] = val[a.Vs[i*sa]] * val[b.Vs[i*sb]]
			}
		}
		return
	}
	for i := range y {
		x, z := a.value(t, i), b.value(t, i)
		switch e.op {
		case '+':
			y[i] = x + z
		case '-':
			y[i] = x - z
		case '*':
			y[i] = x * z
		case '/':
			if b.Vs == nil {
				y[i] = x * (1 / z)
			} else {
				y[i] = x / z
			}
		}
	}
}

// backward runs over the results last to first, as the sweep would over
// the scalar nodes, so that broadcast operands sum their adjoints in the
// same order.
func (e *elementwise) backward(t *Tape, out, adj []float64) {
	if e.op != '/' {
		e.backwardFast(t, out, adj)
		return
	}
	at := func(vs []Var, i int) Var {
		if len(vs) == 1 {
			return vs[0]
		}
		return vs[i]
	}
	for i := len(out) - 1; i >= 0; i-- {
		g := out[i]
		if g == 0 {
			continue
		}
		x, z := e.a.value(t, i), e.b.value(t, i)
		var da, db float64
		switch e.op {
		case '+':
			da, db = 1, 1
		case '-':
			da, db = 1, -1
		case '*':
			da, db = z, x
		case '/':
			q := t.val[int(e.first)+i]
			da, db = 1/z, -q/z
		}
		if e.a.Vs != nil {
			adj[at(e.a.Vs, i)] += g * da
		}
		if e.b.Vs != nil {
			adj[at(e.b.Vs, i)] += g * db
		}
	}
}

// backwardFast is backward for '+', '-' and '*', with each operand's
// element found by a stride (0 for one element applying to all) rather
// than tested per element, and the operation and the operands' kinds
// switched on once rather than per element. g·1 is g and g·(−1) is −g
// exactly, so the adjoints are backward's to the bit; each result's
// contributions are added in backward's order (a's before b's, results
// last to first), which matters when a and b share a node.
func (e *elementwise) backwardFast(t *Tape, out, adj []float64) {
	val := t.val
	av, bv, af, bf := e.a.Vs, e.b.Vs, e.a.F, e.b.F
	stride := func(n int) int {
		if n == 1 {
			return 0
		}
		return 1
	}
	sa, sb := stride(e.a.len()), stride(e.b.len())
	switch {
	case e.op == '*' && av != nil && bv != nil:
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				x, z := val[av[i*sa]], val[bv[i*sb]]
				adj[av[i*sa]] += g * z
				adj[bv[i*sb]] += g * x
			}
		}
	case e.op == '*' && av != nil:
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[av[i*sa]] += g * bf[i*sb]
			}
		}
	case e.op == '*':
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[bv[i*sb]] += g * af[i*sa]
			}
		}
	case av != nil && bv != nil && e.op == '+':
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[av[i*sa]] += g
				adj[bv[i*sb]] += g
			}
		}
	case av != nil && bv != nil: // '-'
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[av[i*sa]] += g
				adj[bv[i*sb]] += -g
			}
		}
	case av != nil: // '+' or '-' with b constant
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[av[i*sa]] += g
			}
		}
	case e.op == '+': // a constant
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[bv[i*sb]] += g
			}
		}
	default: // '-', a constant
		for i := len(out) - 1; i >= 0; i-- {
			if g := out[i]; g != 0 {
				adj[bv[i*sb]] += -g
			}
		}
	}
}
