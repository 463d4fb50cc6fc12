package ad

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// A vector operation records its n results as n consecutive nodes without
// scalar parents and keeps what its adjoint needs; the reverse sweep hands
// it the results' adjoints at once. One operation replaces n scalar nodes
// with their parent lists, and its adjoint can be a BLAS call.
type vecOp interface {
	// forward computes the results, out, from the operands' current
	// values (the tape's values for nodes), as recording did.
	forward(t *Tape, out []float64)
	// backward adds the operation's contribution to its operands'
	// adjoints in adj, given the adjoints of its results, out.
	backward(t *Tape, out, adj []float64)
	// operands are the nodes the results are computed from (for
	// Ancestors; nil slices for constant operands).
	operands() [][]Var
}

// run is a vector operation and its results, nodes lo to hi−1.
type run struct {
	lo, hi int32
	op     vecOp
}

// results appends n nodes without scalar parents, returns their values for
// the caller to fill, and registers op as their adjoint.
func (t *Tape) results(n int, op vecOp) (vals []float64, first Var) {
	lo := len(t.val)
	t.val = append(t.val, make([]float64, n)...)
	end := int32(len(t.par))
	for range n {
		t.off = append(t.off, end)
		t.mark(kRun, 0)
	}
	if n > 0 {
		t.runs = append(t.runs, run{lo: int32(lo), hi: int32(lo + n), op: op})
	}
	return t.val[lo:], Var(lo)
}

// scratch returns a slice of n floats that is valid until the next call.
func (t *Tape) scratch(n int) []float64 {
	if cap(t.buf) < n {
		t.buf = make([]float64, n)
	}
	return t.buf[:n]
}

// matVec is y = A·x (or Aᵀ·x) for a constant matrix A.
type matVec struct {
	a     blas64.General
	trans blas.Transpose
	x     []Var
}

// MatVec records y = A·x, or y = Aᵀ·x with trans, where A is a constant
// rows×cols matrix stored row by row in a (the tape keeps a reference: it
// must not change before the tape is reset) and x holds nodes. It returns
// the result's nodes. The adjoint is x̄ += Aᵀ·ȳ (A·ȳ with trans).
func (t *Tape) MatVec(trans bool, a []float64, rows, cols int, x []Var) []Var {
	if len(a) != rows*cols {
		panic("ad: MatVec needs len(a) == rows·cols")
	}
	op := &matVec{a: blas64.General{Rows: rows, Cols: cols, Stride: max(cols, 1), Data: a}, trans: blas.NoTrans, x: x}
	n, m := rows, cols
	if trans {
		op.trans, n, m = blas.Trans, cols, rows
	}
	if len(x) != m {
		panic("ad: MatVec needs len(x) to match the matrix")
	}
	y, first := t.results(n, op)
	op.forward(t, y)
	return seq(first, n)
}

func (op *matVec) operands() [][]Var { return [][]Var{op.x} }

func (op *matVec) forward(t *Tape, y []float64) {
	m, n := len(op.x), len(y)
	xv := t.scratch(m)
	for j, v := range op.x {
		xv[j] = t.val[v]
	}
	if n > 0 && m > 0 {
		blas64.Gemv(op.trans, 1, op.a, blas64.Vector{N: m, Data: xv, Inc: 1}, 0, blas64.Vector{N: n, Data: y, Inc: 1})
	}
}

func (op *matVec) backward(t *Tape, out, adj []float64) {
	m := len(op.x)
	if m == 0 || len(out) == 0 {
		return
	}
	other := blas.Trans
	if op.trans == blas.Trans {
		other = blas.NoTrans
	}
	g := t.scratch(m)
	blas64.Gemv(other, 1, op.a, blas64.Vector{N: len(out), Data: out, Inc: 1}, 0, blas64.Vector{N: m, Data: g, Inc: 1})
	for j, v := range op.x {
		adj[v] += g[j]
	}
}

// seq is the n nodes from first on.
func seq(first Var, n int) []Var {
	vs := make([]Var, n)
	for i := range vs {
		vs[i] = first + Var(i)
	}
	return vs
}
