package kbr

import (
	"errors"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// exactOp is R = B(B² + δI)⁻¹Λ with B = ΛG_Y, the matrix B² + δI
// factorised once by LU with partial pivoting (it is not symmetric: Λ may
// have any signs). The factor is LAPACK's getrf on a row-major copy, as
// mat.LU keeps it, but without mat.LU's condition estimate (gecon, 14% of
// the build at n = 2000): an exactly singular matrix, the only one refused,
// shows as a zero pivot.
type exactOp struct {
	b    *mat.Dense
	mu   []float64
	lu   blas64.General
	ipiv []int
	dim  int
}

func newExactOp(gy *mat.SymDense, mu []float64, delta float64) (*exactOp, error) {
	n := gy.SymmetricDim()
	b := mat.NewDense(n, n, nil)
	g := gy.RawSymmetric()
	braw := b.RawMatrix()
	for i := 0; i < n; i++ {
		row := braw.Data[i*braw.Stride : i*braw.Stride+n]
		for j := range row {
			// The upper triangle holds G_Y.
			row[j] = mu[i] * g.Data[min(i, j)*g.Stride+max(i, j)]
		}
	}
	a := mat.NewDense(n, n, nil)
	a.Mul(b, b)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+delta)
	}
	op := &exactOp{b: b, mu: mu, dim: n, lu: a.RawMatrix(), ipiv: make([]int, n)}
	if !lapack64.Getrf(op.lu, op.ipiv) {
		return nil, errors.New("(ΛG_Y)² + δI is singular: increase delta")
	}
	return op, nil
}

func (op *exactOp) apply(k *mat.Dense) *mat.Dense {
	_, m := k.Dims()
	z := scaleRows(op.mu, k)
	// The LU solve can only fail for a singular matrix, refused above;
	// a near-singular one still gives the best solution LU can.
	lapack64.Getrs(blas.NoTrans, op.lu, z.RawMatrix(), op.ipiv)
	w := mat.NewDense(op.dim, m, nil)
	w.Mul(op.b, z)
	return w
}

// lowRankOp is R for G_Y ≈ LLᵀ (n×r). With P = ΛL and the symmetric
// M = LᵀΛL, the push-through identity Lᵀ(δI + PMLᵀ)⁻¹ = (δI + M²)⁻¹Lᵀ
// turns R into P(M² + δI)⁻¹Pᵀ: an r×r positive definite system, built in
// O(nr²) and applied in O(nr) per observation.
type lowRankOp struct {
	p  *mat.Dense
	ch mat.Cholesky
}

func newLowRankOp(l *mat.Dense, mu []float64, delta float64) (*lowRankOp, error) {
	_, r := l.Dims()
	p := scaleRows(mu, l)
	var mm mat.Dense
	mm.Mul(l.T(), p)
	c := mat.NewSymDense(r, nil)
	var m2 mat.Dense
	m2.Mul(&mm, &mm)
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			// M is symmetric, so M² is too; average the rounding away.
			v := 0.5 * (m2.At(i, j) + m2.At(j, i))
			if i == j {
				v += delta
			}
			c.SetSym(i, j, v)
		}
	}
	op := &lowRankOp{p: p}
	if !op.ch.Factorize(c) {
		return nil, errors.New("M² + δI is not positive definite: increase delta")
	}
	return op, nil
}

func (op *lowRankOp) apply(k *mat.Dense) *mat.Dense {
	var t, u mat.Dense
	t.Mul(op.p.T(), k)
	_ = op.ch.SolveTo(&u, &t) // positive definite, checked when built
	var w mat.Dense
	w.Mul(op.p, &u)
	return &w
}

// scaleRows returns diag(d)·a.
func scaleRows(d []float64, a *mat.Dense) *mat.Dense {
	r, c := a.Dims()
	out := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			out.Set(i, j, d[i]*a.At(i, j))
		}
	}
	return out
}

// woodbury applies (LLᵀ + cI)⁻¹ = (I − L(cI + LᵀL)⁻¹Lᵀ)/c for an n×r
// factor L, in O(nr) per column once the r×r system is factorised.
type woodbury struct {
	l  *mat.Dense
	c  float64
	ch mat.Cholesky
}

func newWoodbury(l *mat.Dense, c float64) (*woodbury, error) {
	_, r := l.Dims()
	s := mat.NewSymDense(r, nil)
	s.SymOuterK(1, l.T())
	for i := 0; i < r; i++ {
		s.SetSym(i, i, s.At(i, i)+c)
	}
	w := &woodbury{l: l, c: c}
	if !w.ch.Factorize(s) {
		return nil, errors.New("cI + LᵀL is not positive definite")
	}
	return w, nil
}

func (w *woodbury) apply(b *mat.Dense) *mat.Dense {
	var t, u mat.Dense
	t.Mul(w.l.T(), b)
	_ = w.ch.SolveTo(&u, &t)
	var out mat.Dense
	out.Mul(w.l, &u)
	out.Sub(b, &out)
	out.Scale(1/w.c, &out)
	return &out
}

func woodburySolve(l *mat.Dense, c float64, b []float64) ([]float64, error) {
	w, err := newWoodbury(l, c)
	if err != nil {
		return nil, err
	}
	out := w.apply(mat.NewDense(len(b), 1, append([]float64(nil), b...)))
	return mat.Col(nil, 0, out), nil
}
