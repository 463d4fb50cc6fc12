package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/kernels"
)

// GreedyVariance chooses up to m inducing points among the rows of x by
// greedy conditional-variance selection (Burt, Rasmussen and van der Wilk
// 2020, Algorithm 1): each step takes the row whose variance given the
// rows already chosen, k(x, x) − Q(x, x), is largest, which is a pivoted
// partial Cholesky factorisation of K. It stops early, with fewer points,
// when the largest remaining variance is at most tol times the largest
// prior variance (tol ≤ 0: 1e-12), so duplicates and rows the chosen ones
// already explain are never taken. It returns the chosen rows in the
// order taken. Time O(nm² + nmD), memory O(nm) (the factor's m columns).
// The trace term of Titsias' bound (SGPRLogMarginal) is tr(K − Q), the
// sum of the variances this selection drives down.
func GreedyVariance(k kernels.Kernel, x *mat.Dense, m int, tol float64) (*mat.Dense, error) {
	n, d := x.Dims()
	if m < 1 || m > n {
		return nil, fmt.Errorf("gp: cannot choose %d inducing points from %d rows", m, n)
	}
	if tol <= 0 {
		tol = 1e-12
	}
	resid := make([]float64, n)
	top := 0.0
	for i := range resid {
		xi := x.RawRowView(i)
		resid[i] = k.Eval(xi, xi)
		if math.IsNaN(resid[i]) || math.IsInf(resid[i], 0) {
			return nil, ErrNonFinite
		}
		top = math.Max(top, resid[i])
	}
	var chosen []int
	// f holds the factor's columns as an n × m row-major matrix, so that
	// removing the chosen points' part of a kernel column is one DGEMV.
	f := make([]float64, n*m)
	for len(chosen) < m {
		interrupt.Check()
		p := 0
		for i, v := range resid {
			if v > resid[p] {
				p = i
			}
		}
		if !(resid[p] > tol*top) {
			break
		}
		kc, err := kernels.Cross(k, x, x.Slice(p, p+1, 0, d).(*mat.Dense))
		if err != nil {
			return nil, err
		}
		e := kc.RawMatrix().Data // the n × 1 column k(xᵢ, x_p), stride 1
		if len(e) != n {
			e = mat.Col(nil, 0, kc)
		}
		j := len(chosen)
		if j > 0 {
			// e ← e − F[:, :j]·F[p, :j].
			blas64.Gemv(blas.NoTrans, -1,
				blas64.General{Rows: n, Cols: j, Stride: m, Data: f},
				blas64.Vector{N: j, Inc: 1, Data: f[p*m : p*m+j]},
				1, blas64.Vector{N: n, Inc: 1, Data: e})
		}
		s := math.Sqrt(resid[p])
		for i := range e {
			e[i] /= s
			resid[i] -= e[i] * e[i]
			f[i*m+j] = e[i]
		}
		resid[p] = math.Inf(-1)
		for _, q := range chosen {
			resid[q] = math.Inf(-1)
		}
		chosen = append(chosen, p)
	}
	z := mat.NewDense(len(chosen), d, nil)
	for j, p := range chosen {
		z.SetRow(j, x.RawRowView(p))
	}
	return z, nil
}
