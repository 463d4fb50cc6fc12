package ad

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// solve is X = A⁻¹·B.
type solve struct {
	a, b  Matrix
	first Var
	av    []float64
	tri   blas.Uplo // blas.Lower or blas.Upper when A is triangular, else blas.All
	lu    mat.LU
	ok    bool
}

// Solve records X = A⁻¹·B for an n×n A and an n×m B, one of them or both on
// the tape, and returns X's n·m nodes row by row. A triangular A (a
// Cholesky factor, or its transpose) is solved by substitution, any other
// by LU. It reports false when A is singular; X is then NaN. The adjoints
// are B̄ += A⁻ᵀ·X̄ and Ā += −A⁻ᵀ·X̄·Xᵀ.
func (t *Tape) Solve(a, b Matrix) ([]Var, bool) {
	a.check("Solve")
	b.check("Solve")
	if a.Rows != a.Cols || b.Rows != a.Rows {
		panic("ad: Solve needs a square A with as many rows as B")
	}
	op := &solve{a: a, b: b, av: make([]float64, a.Rows*a.Cols)}
	x, first := t.results(b.Rows*b.Cols, op)
	op.first = first
	op.forward(t, x)
	return seq(first, b.Rows*b.Cols), op.ok
}

// triangle reports which triangle of the n×n a holds its nonzeros.
func triangle(a []float64, n int) blas.Uplo {
	lower, upper := true, true
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if a[i*n+j] != 0 {
				lower = lower && j <= i
				upper = upper && j >= i
			}
		}
	}
	switch {
	case lower:
		return blas.Lower
	case upper:
		return blas.Upper
	}
	return blas.All
}

func (op *solve) operands() [][]Var { return [][]Var{op.a.Vs, op.b.Vs} }

func (op *solve) forward(t *Tape, x []float64) {
	n, m := op.b.Rows, op.b.Cols
	op.a.values(t, op.av)
	op.b.values(t, x)
	op.ok = true
	if n == 0 || m == 0 {
		return
	}
	op.tri = triangle(op.av, n)
	if op.tri != blas.All {
		for i := 0; i < n; i++ {
			if op.av[i*n+i] == 0 {
				op.ok = false
			}
		}
		if op.ok {
			blas64.Trsm(blas.Left, blas.NoTrans, 1, op.triangular(), general(n, m, x))
		}
	} else {
		op.lu.Factorize(mat.NewDense(n, n, op.av))
		if c := op.lu.Cond(); c > 1/2.2e-16 || math.IsInf(c, 0) || math.IsNaN(c) {
			op.ok = false
		} else {
			op.ok = op.lu.SolveTo(mat.NewDense(n, m, x), false, mat.NewDense(n, m, append([]float64(nil), x...))) == nil
		}
	}
	if !op.ok {
		for i := range x {
			x[i] = math.NaN()
		}
	}
}

func (op *solve) triangular() blas64.Triangular {
	n := op.a.Rows
	return blas64.Triangular{Uplo: op.tri, Diag: blas.NonUnit, N: n, Stride: n, Data: op.av}
}

func (op *solve) backward(t *Tape, out, adj []float64) {
	n, m := op.b.Rows, op.b.Cols
	if n == 0 || m == 0 || !op.ok {
		return
	}
	// bbar = A⁻ᵀ·X̄.
	bbar := append([]float64(nil), out...)
	if op.tri != blas.All {
		blas64.Trsm(blas.Left, blas.Trans, 1, op.triangular(), general(n, m, bbar))
	} else if err := op.lu.SolveTo(mat.NewDense(n, m, bbar), true, mat.NewDense(n, m, append([]float64(nil), out...))); err != nil {
		return
	}
	op.b.addAdj(adj, bbar)
	if op.a.Vs != nil {
		xv := t.val[int(op.first) : int(op.first)+n*m]
		g := make([]float64, n*n)
		blas64.Gemm(blas.NoTrans, blas.Trans, -1, general(n, m, bbar), general(n, m, xv), 0, general(n, n, g))
		op.a.addAdj(adj, g)
	}
}

// LogDet records log |det A| of the n×n matrix of nodes a, with
// ∂/∂A = A⁻ᵀ.
func (t *Tape) LogDet(a []Var, n int) Var {
	return t.Func(a, func(x, d []float64) float64 {
		ld, _, ok := invT(x, n, d)
		if !ok {
			return math.Inf(-1)
		}
		return ld
	})
}

// Det records det A of the n×n matrix of nodes a, with ∂/∂A = det(A)·A⁻ᵀ.
func (t *Tape) Det(a []Var, n int) Var {
	return t.Func(a, func(x, d []float64) float64 {
		ld, sign, ok := invT(x, n, d)
		if !ok {
			return 0
		}
		det := sign * math.Exp(ld)
		for i := range d {
			d[i] *= det
		}
		return det
	})
}

// invT writes A⁻ᵀ (row by row) into d for the n×n matrix x and returns
// log |det A| and the sign of det A; ok is false, and d NaN, when A is
// singular.
func invT(x []float64, n int, d []float64) (logAbs, sign float64, ok bool) {
	if n == 0 {
		return 0, 1, true
	}
	var lu mat.LU
	lu.Factorize(mat.NewDense(n, n, x))
	logAbs, sign = lu.LogDet()
	var inv mat.Dense
	id := mat.NewDiagDense(n, nil)
	for i := 0; i < n; i++ {
		id.SetDiag(i, 1)
	}
	if math.IsInf(logAbs, -1) || lu.SolveTo(&inv, true, id) != nil {
		for i := range d {
			d[i] = math.NaN()
		}
		return logAbs, sign, false
	}
	// The solve with trans gives (Aᵀ)⁻¹ = A⁻ᵀ directly.
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			d[i*n+j] = inv.At(i, j)
		}
	}
	return logAbs, sign, true
}

// Trace records the sum of the diagonal of the n×n matrix of nodes a.
func (t *Tape) Trace(a []Var, n int) Var {
	diag := make([]Var, n)
	for i := range diag {
		diag[i] = a[i*n+i]
	}
	return t.Func(diag, func(x, d []float64) float64 {
		s := 0.0
		for i, v := range x {
			s += v
			d[i] = 1
		}
		return s
	})
}
