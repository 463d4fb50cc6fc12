package ad

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// JacFn computes n results y from the parents' values x and writes the
// Jacobian ∂yᵢ/∂xⱼ into jac[i·len(x)+j]. Like Fn, it must depend on nothing
// but x and what it captured.
type JacFn func(x, y, jac []float64)

// jacobian is n results with a dense Jacobian over a few parents.
type jacobian struct {
	parents []Var
	f       JacFn
	x, jac  []float64
}

// VecFunc records the n results f computes from parents, a vector
// operation whose adjoint is x̄ += Jᵀ·ȳ: a matrix computed in closed form
// from a few scalars (a Gram matrix from a kernel's hyperparameters) joins
// the tape this way.
func (t *Tape) VecFunc(parents []Var, n int, f JacFn) []Var {
	op := &jacobian{parents: parents, f: f, x: make([]float64, len(parents)), jac: make([]float64, n*len(parents))}
	y, first := t.results(n, op)
	op.forward(t, y)
	return seq(first, n)
}

func (op *jacobian) operands() [][]Var { return [][]Var{op.parents} }

func (op *jacobian) forward(t *Tape, y []float64) {
	for j, v := range op.parents {
		op.x[j] = t.val[v]
	}
	clear(op.jac)
	op.f(op.x, y, op.jac)
}

func (op *jacobian) backward(t *Tape, out, adj []float64) {
	p := len(op.parents)
	if p == 0 || len(out) == 0 {
		return
	}
	g := make([]float64, p)
	blas64.Gemv(blas.Trans, 1, general(len(out), p, op.jac), blas64.Vector{N: len(out), Data: out, Inc: 1}, 0, blas64.Vector{N: p, Data: g, Inc: 1})
	for j, v := range op.parents {
		adj[v] += g[j]
	}
}
