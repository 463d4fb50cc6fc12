package ad

import "math"

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
}

// Fn computes a node's value from its parents' values x and writes the
// partial derivatives with respect to them into d (len(d) == len(x)). It
// must depend on nothing but x and what it captured when it was recorded.
type Fn func(x, d []float64) float64

type fnNode struct {
	v Var
	f Fn
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
}

// Len is the number of nodes on the tape.
func (t *Tape) Len() int { return len(t.val) }

// Value returns the value of v.
func (t *Tape) Value(v Var) float64 { return t.val[v] }

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
	return Var(len(t.val) - 1)
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
	v := Var(len(t.val) - 1)
	t.fns = append(t.fns, fnNode{v: v, f: f})
	return v
}

func (t *Tape) node1(value float64, a Var, da float64) Var {
	t.val = append(t.val, value)
	t.par = append(t.par, a)
	t.d = append(t.d, da)
	t.off = append(t.off, int32(len(t.par)))
	return Var(len(t.val) - 1)
}

func (t *Tape) node2(value float64, a Var, da float64, b Var, db float64) Var {
	t.val = append(t.val, value)
	t.par = append(t.par, a, b)
	t.d = append(t.d, da, db)
	t.off = append(t.off, int32(len(t.par)))
	return Var(len(t.val) - 1)
}

// Add is a + b.
func (t *Tape) Add(a, b Var) Var { return t.node2(t.val[a]+t.val[b], a, 1, b, 1) }

// Sub is a − b.
func (t *Tape) Sub(a, b Var) Var { return t.node2(t.val[a]-t.val[b], a, 1, b, -1) }

// Mul is a·b.
func (t *Tape) Mul(a, b Var) Var {
	return t.node2(t.val[a]*t.val[b], a, t.val[b], b, t.val[a])
}

// Div is a / b.
func (t *Tape) Div(a, b Var) Var {
	q := t.val[a] / t.val[b]
	return t.node2(q, a, 1/t.val[b], b, -q/t.val[b])
}

// Pow is a^b; its derivative with respect to b needs a > 0 and is taken as 0
// where a^b does not depend on b (a = 0 with b > 0).
func (t *Tape) Pow(a, b Var) Var {
	x, y := t.val[a], t.val[b]
	p := math.Pow(x, y)
	var dy float64
	if x > 0 {
		dy = p * math.Log(x)
	} else if x < 0 || y <= 0 {
		dy = math.NaN()
	}
	return t.node2(p, a, y*math.Pow(x, y-1), b, dy)
}

// AddConst is a + c.
func (t *Tape) AddConst(a Var, c float64) Var { return t.node1(t.val[a]+c, a, 1) }

// MulConst is c·a.
func (t *Tape) MulConst(a Var, c float64) Var { return t.node1(c*t.val[a], a, c) }

// ConstDiv is c / a.
func (t *Tape) ConstDiv(c float64, a Var) Var {
	q := c / t.val[a]
	return t.node1(q, a, -q/t.val[a])
}

// PowConst is a^c.
func (t *Tape) PowConst(a Var, c float64) Var {
	x := t.val[a]
	if c == 2 {
		return t.node1(x*x, a, 2*x)
	}
	return t.node1(math.Pow(x, c), a, c*math.Pow(x, c-1))
}

// ConstPow is c^a for c > 0.
func (t *Tape) ConstPow(c float64, a Var) Var {
	p := math.Pow(c, t.val[a])
	return t.node1(p, a, p*math.Log(c))
}

// Neg is −a.
func (t *Tape) Neg(a Var) Var { return t.node1(-t.val[a], a, -1) }

// Exp is e^a.
func (t *Tape) Exp(a Var) Var {
	e := math.Exp(t.val[a])
	return t.node1(e, a, e)
}

// Log is the natural logarithm of a.
func (t *Tape) Log(a Var) Var { return t.node1(math.Log(t.val[a]), a, 1/t.val[a]) }

// Sqrt is √a.
func (t *Tape) Sqrt(a Var) Var {
	s := math.Sqrt(t.val[a])
	return t.node1(s, a, 0.5/s)
}

// Sum is the sum of vs.
func (t *Tape) Sum(vs []Var) Var {
	ones := make([]float64, len(vs))
	s := 0.0
	for i, v := range vs {
		ones[i] = 1
		s += t.val[v]
	}
	return t.Node(s, vs, ones)
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
	for i := n - 1; i >= 0; i-- {
		if k >= 0 && i == int(t.runs[k].hi)-1 {
			r := t.runs[k]
			r.op.backward(t, adj[r.lo:r.hi], adj)
			i = int(r.lo)
			k--
			continue
		}
		a := adj[i]
		if a == 0 {
			continue
		}
		for j := t.off[i]; j < t.off[i+1]; j++ {
			adj[t.par[j]] += a * t.d[j]
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
	return Var(len(t.val) - 1), t.par[lo:], t.d[lo:]
}

// SetValue sets the value of a node made by Open.
func (t *Tape) SetValue(v Var, x float64) { t.val[v] = x }
