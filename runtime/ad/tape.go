package ad

// Var is a node on a Tape: an input or the result of an operation.
type Var int32

// Tape records a computation as nodes, each with its value and the partial
// derivatives of the value with respect to the node's parents. A Tape is
// used by one goroutine at a time; Reset makes it reusable without
// allocating.
type Tape struct {
	val []float64
	off []int32 // node i's parents are par[off[i]:off[i+1]]
	par []Var
	d   []float64
	adj []float64
	// runs are the vector operations, in the order recorded: each result
	// is a run of consecutive nodes with no scalar parents whose adjoint
	// the operation propagates itself (vec.go).
	runs []run
	buf  []float64 // scratch for the vector operations
	// fns are the nodes recorded by Func, in the order recorded, with the
	// functions that compute them (so they can be computed again).
	fns []fnNode
	// guards are the checks recorded by Guard, in the order recorded.
	guards []guard
	// kind and cst say how each node was computed, so that Replay can
	// compute it again (replay.go); why is the first node or read that
	// makes the recording not replayable (why.go).
	kind []kind
	cst  []float64
	why  firstTaint
	// lead is the number of leading nodes without parents recorded by
	// Node (the inputs, typically): the reverse sweep stops above them,
	// as they pass no adjoint on.
	lead int
}

// Fn computes a node's value from its parents' values x and writes the
// partial derivatives with respect to them into d (len(d) == len(x)). It
// must depend on nothing but x and what it captured when it was recorded,
// and must not write into x: a replay may hand it the tape's own values.
type Fn func(x, d []float64) float64

// fnNode is a Func node and its function; first is its first parent when
// the parents are consecutive nodes in order (first, first+1, ...), whose
// values a replay then passes as they lie on the tape, else −1.
type fnNode struct {
	v     Var
	f     Fn
	first Var
}

// NewTape returns an empty tape.
func NewTape() *Tape {
	return &Tape{off: []int32{0}}
}

// Reset empties the tape, keeping its storage.
func (t *Tape) Reset() {
	t.val = t.val[:0]
	t.off = t.off[:1]
	t.par = t.par[:0]
	t.d = t.d[:0]
	clear(t.runs) // drop the operations' references to their operands
	t.runs = t.runs[:0]
	clear(t.fns)
	t.fns = t.fns[:0]
	clear(t.guards)
	t.guards = t.guards[:0]
	t.kind = t.kind[:0]
	t.cst = t.cst[:0]
	t.why.cause = 0
	t.lead = 0
}

// Len is the number of nodes on the tape.
func (t *Tape) Len() int { return len(t.val) }

// Value returns the value of v. Whatever the caller does with it, Replay
// would not do again, so the recording is no longer replayable (Taint).
func (t *Tape) Value(v Var) float64 {
	if t.why.cause == 0 {
		t.note(ValueRead, v)
	}
	return t.val[v]
}

// Peek returns the value of v and leaves the recording replayable: for a
// value the caller passes on (the log density it returns) or checks in a
// way a replay's result shows too (a non-finite total), never for one it
// decides with or computes a constant from.
func (t *Tape) Peek(v Var) float64 { return t.val[v] }

// Input records an independent variable with value x.
func (t *Tape) Input(x float64) Var {
	return t.Node(x, nil, nil)
}

// Node records a value computed from parents, with partials[i] the
// derivative of the value with respect to parents[i]. Any differentiable
// function, however it is computed, joins the tape this way.
func (t *Tape) Node(value float64, parents []Var, partials []float64) Var {
	if len(parents) != len(partials) {
		panic("ad: Node needs one partial derivative per parent")
	}
	t.val = append(t.val, value)
	t.par = append(t.par, parents...)
	t.d = append(t.d, partials...)
	t.off = append(t.off, int32(len(t.par)))
	t.mark(kConst, 0)
	v := Var(len(t.val) - 1)
	if len(parents) > 0 {
		t.kind[v] = kOpaque
		if t.why.cause == 0 {
			t.note(OpaqueNode, v)
		}
	} else if int(v) == t.lead {
		t.lead++
	}
	return v
}

// mark records the kind of the node just appended.
func (t *Tape) mark(k kind, c float64) {
	t.kind = append(t.kind, k)
	t.cst = append(t.cst, c)
}

// Func records the node f computes from parents. Unlike Node, the tape
// keeps f, so the node can be computed again at new input values: prefer
// Func wherever the value and partials are a function of the parents'
// values and of constants.
func (t *Tape) Func(parents []Var, f Fn) Var {
	n := len(parents)
	lo := len(t.par)
	t.par = append(t.par, parents...)
	t.d = append(t.d, make([]float64, n)...)
	x := t.scratch(n)
	for i, p := range parents {
		x[i] = t.val[p]
	}
	t.val = append(t.val, f(x, t.d[lo:lo+n]))
	t.off = append(t.off, int32(len(t.par)))
	t.mark(kFunc, 0)
	v := Var(len(t.val) - 1)
	first := Var(-1)
	if n > 0 {
		first = parents[0]
		for i, p := range parents {
			if p != first+Var(i) {
				first = -1
				break
			}
		}
	}
	t.fns = append(t.fns, fnNode{v: v, f: f, first: first})
	return v
}

// Pred is a check on parents' values x; it must depend on nothing but x
// and what it captured when it was recorded.
type Pred func(x []float64) bool

type guard struct {
	pred Pred
	want bool
}

// Guard records a check of the parents' values and returns its result:
// the caller branches on it (a symmetry check, a support check, an `if` on
// a parameter) and the recording stays replayable, because Replay
// evaluates pred again and reports false when its answer differs from the
// recording's, so that the caller records afresh. The check is a node of
// the tape with value 0 that nothing depends on.
func (t *Tape) Guard(parents []Var, pred Pred) bool {
	n := len(parents)
	t.par = append(t.par, parents...)
	t.d = append(t.d, make([]float64, n)...)
	x := t.scratch(n)
	for i, p := range parents {
		x[i] = t.val[p]
	}
	ok := pred(x)
	t.val = append(t.val, 0)
	t.off = append(t.off, int32(len(t.par)))
	t.mark(kGuard, 0)
	t.guards = append(t.guards, guard{pred: pred, want: ok})
	return ok
}

// Add is a + b.
func (t *Tape) Add(a, b Var) Var { return t.op2(kAdd, a, b) }

// Sub is a − b.
func (t *Tape) Sub(a, b Var) Var { return t.op2(kSub, a, b) }

// Mul is a·b.
func (t *Tape) Mul(a, b Var) Var { return t.op2(kMul, a, b) }

// Div is a / b.
func (t *Tape) Div(a, b Var) Var { return t.op2(kDiv, a, b) }

// Pow is a^b; its derivative with respect to b needs a > 0 and is taken as 0
// where a^b does not depend on b (a = 0 with b > 0).
func (t *Tape) Pow(a, b Var) Var { return t.op2(kPow, a, b) }

// AddConst is a + c.
func (t *Tape) AddConst(a Var, c float64) Var { return t.op1(kAddConst, c, a) }

// MulConst is c·a.
func (t *Tape) MulConst(a Var, c float64) Var { return t.op1(kMulConst, c, a) }

// ConstDiv is c / a.
func (t *Tape) ConstDiv(c float64, a Var) Var { return t.op1(kConstDiv, c, a) }

// PowConst is a^c.
func (t *Tape) PowConst(a Var, c float64) Var { return t.op1(kPowConst, c, a) }

// ConstPow is c^a for c > 0.
func (t *Tape) ConstPow(c float64, a Var) Var { return t.op1(kConstPow, c, a) }

// Neg is −a.
func (t *Tape) Neg(a Var) Var { return t.op1(kNeg, 0, a) }

// ConstSub is c − a: one node where AddConst(Neg(a), c) is two, with the
// same value to the bit (−a + c is c − a in IEEE arithmetic).
func (t *Tape) ConstSub(c float64, a Var) Var { return t.op1(kConstSub, c, a) }

// Exp is e^a.
func (t *Tape) Exp(a Var) Var { return t.op1(kExp, 0, a) }

// Log is the natural logarithm of a.
func (t *Tape) Log(a Var) Var { return t.op1(kLog, 0, a) }

// Sqrt is √a.
func (t *Tape) Sqrt(a Var) Var { return t.op1(kSqrt, 0, a) }

// Sum is the sum of vs.
func (t *Tape) Sum(vs []Var) Var {
	s := 0.0
	for _, v := range vs {
		s += t.val[v]
		t.d = append(t.d, 1)
	}
	t.val = append(t.val, s)
	t.par = append(t.par, vs...)
	t.off = append(t.off, int32(len(t.par)))
	t.mark(kSum, 0)
	return Var(len(t.val) - 1)
}

// Gradient writes ∂out/∂wrt[i] into dst[i] by one reverse sweep over the
// nodes up to out.
func (t *Tape) Gradient(dst []float64, out Var, wrt []Var) {
	if len(dst) != len(wrt) {
		panic("ad: Gradient needs len(dst) == len(wrt)")
	}
	n := int(out) + 1
	// A vector result is differentiated as a whole: when out is one of its
	// elements, the sweep starts at the run's end.
	k := len(t.runs) - 1
	for k >= 0 && int(t.runs[k].lo) >= n {
		k--
	}
	if k >= 0 && int(t.runs[k].hi) > n {
		n = int(t.runs[k].hi)
	}
	if cap(t.adj) < n {
		t.adj = make([]float64, n)
	}
	adj := t.adj[:n]
	clear(adj)
	adj[out] = 1
	// The sweep's slices are locals and the next run's last node is kept,
	// so the loop over scalar nodes loads nothing else.
	off, par, d := t.off[:n+1], t.par, t.d
	nextRun := -1
	if k >= 0 {
		nextRun = int(t.runs[k].hi) - 1
	}
	for i := n - 1; i >= t.lead; i-- {
		if i == nextRun {
			r := t.runs[k]
			r.op.backward(t, adj[r.lo:r.hi], adj)
			i = int(r.lo)
			k--
			nextRun = -1
			if k >= 0 {
				nextRun = int(t.runs[k].hi) - 1
			}
			continue
		}
		a := adj[i]
		if a == 0 {
			continue
		}
		// Most nodes have one or two parents: those are unrolled (in the
		// loop's order, so the sums are the same).
		switch lo, hi := off[i], off[i+1]; hi - lo {
		case 1:
			adj[par[lo]] += a * d[lo]
		case 2:
			adj[par[lo]] += a * d[lo]
			adj[par[lo+1]] += a * d[lo+1]
		default:
			for j := lo; j < hi; j++ {
				adj[par[j]] += a * d[j]
			}
		}
	}
	for i, v := range wrt {
		if int(v) < n {
			dst[i] = adj[v]
		} else {
			dst[i] = 0
		}
	}
}

// Open records a node with n parents whose parents and partial derivatives
// the caller writes into par and d (valid until the next recording), and
// whose value it sets with SetValue: a sum over many terms fills its lists
// in place rather than building them first.
func (t *Tape) Open(n int) (v Var, par []Var, d []float64) {
	t.val = append(t.val, 0)
	lo := len(t.par)
	t.par = append(t.par, make([]Var, n)...)
	t.d = append(t.d, make([]float64, n)...)
	t.off = append(t.off, int32(len(t.par)))
	t.mark(kOpaque, 0)
	v = Var(len(t.val) - 1)
	if t.why.cause == 0 {
		t.note(OpenNode, v)
	}
	return v, t.par[lo:], t.d[lo:]
}

// SetValue sets the value of a node made by Open.
func (t *Tape) SetValue(v Var, x float64) { t.val[v] = x }
