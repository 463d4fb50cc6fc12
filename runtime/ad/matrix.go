package ad

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Matrix is an operand of a matrix operation: Rows×Cols elements stored
// row by row, either nodes (Vs) or constants (F). The tape keeps a
// reference to F: it must not change before the tape is reset.
type Matrix struct {
	Rows, Cols int
	Vs         []Var
	F          []float64
}

func (m Matrix) check(name string) {
	n := len(m.F)
	if m.Vs != nil {
		n = len(m.Vs)
	}
	if n != m.Rows*m.Cols {
		panic("ad: " + name + " needs Rows·Cols elements")
	}
}

// values writes m's current values into dst (len Rows·Cols).
func (m Matrix) values(t *Tape, dst []float64) {
	if m.Vs == nil {
		copy(dst, m.F)
		return
	}
	for i, v := range m.Vs {
		dst[i] = t.val[v]
	}
}

// addAdj adds g (Rows×Cols, row-major) to the adjoints of m's nodes.
func (m Matrix) addAdj(adj, g []float64) {
	for i, v := range m.Vs {
		adj[v] += g[i]
	}
}

func general(rows, cols int, data []float64) blas64.General {
	return blas64.General{Rows: rows, Cols: cols, Stride: max(cols, 1), Data: data}
}

// matMul is C = A·B.
type matMul struct {
	a, b   Matrix
	av, bv []float64 // the operands' values at the last forward
}

// MatMul records C = A·B for an n×k A and a k×m B, one of them or both on
// the tape, and returns C's n·m nodes row by row. The adjoints are
// Ā += C̄·Bᵀ and B̄ += Aᵀ·C̄.
func (t *Tape) MatMul(a, b Matrix) []Var {
	a.check("MatMul")
	b.check("MatMul")
	if a.Cols != b.Rows {
		panic("ad: MatMul needs a.Cols == b.Rows")
	}
	op := &matMul{a: a, b: b, av: make([]float64, len(a.F)+len(a.Vs)), bv: make([]float64, len(b.F)+len(b.Vs))}
	c, first := t.results(a.Rows*b.Cols, op)
	op.forward(t, c)
	return seq(first, a.Rows*b.Cols)
}

func (op *matMul) operands() [][]Var { return [][]Var{op.a.Vs, op.b.Vs} }

func (op *matMul) forward(t *Tape, c []float64) {
	op.a.values(t, op.av)
	op.b.values(t, op.bv)
	n, k, m := op.a.Rows, op.a.Cols, op.b.Cols
	if k == 0 {
		clear(c)
		return
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, general(n, k, op.av), general(k, m, op.bv), 0, general(n, m, c))
}

func (op *matMul) backward(t *Tape, out, adj []float64) {
	n, k, m := op.a.Rows, op.a.Cols, op.b.Cols
	if k == 0 {
		return
	}
	if op.a.Vs != nil {
		g := make([]float64, n*k)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, general(n, m, out), general(k, m, op.bv), 0, general(n, k, g))
		op.a.addAdj(adj, g)
	}
	if op.b.Vs != nil {
		g := make([]float64, k*m)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(n, k, op.av), general(n, m, out), 0, general(k, m, g))
		op.b.addAdj(adj, g)
	}
}

// cholesky is L = chol(A).
type cholesky struct {
	a     []Var
	n     int
	first Var  // L's first node
	ok    bool // whether the last forward found A positive definite
}

// Cholesky records the lower Cholesky factor L of the symmetric part
// (A + Aᵀ)/2 of the n×n matrix a and returns L's n² nodes row by row (the
// upper triangle is zero). It reports false when the matrix is not
// positive definite; L is then NaN. The adjoint is Murray's (2016,
// "Differentiation of the Cholesky decomposition", eq. 10): with
// P = Φ(Lᵀ·L̄), Φ the lower triangle with the diagonal halved, and
// S = L⁻ᵀ·P·L⁻¹, Ā += (S + Sᵀ)/2.
func (t *Tape) Cholesky(a []Var, n int) ([]Var, bool) {
	if len(a) != n*n {
		panic("ad: Cholesky needs n² elements")
	}
	op := &cholesky{a: a, n: n}
	l, first := t.results(n*n, op)
	op.first = first
	op.forward(t, l)
	return seq(first, n*n), op.ok
}

func (op *cholesky) operands() [][]Var { return [][]Var{op.a} }

func (op *cholesky) forward(t *Tape, l []float64) {
	n := op.n
	sym := mat.NewSymDense(max(n, 1), nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, (t.val[op.a[i*n+j]]+t.val[op.a[j*n+i]])/2)
		}
	}
	clear(l)
	if n == 0 {
		op.ok = true
		return
	}
	var ch mat.Cholesky
	op.ok = ch.Factorize(sym)
	if !op.ok {
		for i := range l {
			l[i] = math.NaN()
		}
		return
	}
	var lt mat.TriDense
	ch.LTo(&lt)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			l[i*n+j] = lt.At(i, j)
		}
	}
}

func (op *cholesky) backward(t *Tape, out, adj []float64) {
	n := op.n
	if n == 0 || !op.ok {
		return
	}
	lv := t.val[int(op.first) : int(op.first)+n*n]
	// P = Φ(Lᵀ·L̄), with L̄ restricted to the lower triangle (the upper
	// results are constant zeros).
	lbar := make([]float64, n*n)
	for i := 0; i < n; i++ {
		copy(lbar[i*n:i*n+i+1], out[i*n:i*n+i+1])
	}
	p := make([]float64, n*n)
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, general(n, n, lv), general(n, n, lbar), 0, general(n, n, p))
	for i := 0; i < n; i++ {
		p[i*n+i] /= 2
		clear(p[i*n+i+1 : i*n+n])
	}
	// S = L⁻ᵀ·P·L⁻¹ by two triangular solves.
	tri := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: lv}
	blas64.Trsm(blas.Left, blas.Trans, 1, tri, general(n, n, p))
	blas64.Trsm(blas.Right, blas.NoTrans, 1, tri, general(n, n, p))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			adj[op.a[i*n+j]] += (p[i*n+j] + p[j*n+i]) / 2
		}
	}
}
