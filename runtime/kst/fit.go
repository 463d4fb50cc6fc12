package kst

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Hyper are the normal–inverse-Wishart hyperparameters: Sigma0 the scale
// σ0 (the prior scale matrix is σ0² I), Alpha the degrees of freedom α and
// Beta the prior strength β of the mean.
type Hyper struct {
	Sigma0, Alpha, Beta float64
}

// Check returns an error naming the first hyperparameter outside its
// domain. n is the number of training points and d the input dimension: the
// predictive density after n points has the form of the prior predictive
// with α + n degrees of freedom, which on a d-dimensional observation
// manifold is proper only for α + n > d − 1 (the paper, §2.2).
func (h Hyper) Check(n, d int) error {
	switch {
	case !(h.Sigma0 > 0) || math.IsInf(h.Sigma0, 0):
		return fmt.Errorf("sigma0 must be positive and finite, got %v", h.Sigma0)
	case !(h.Alpha > 0) || math.IsInf(h.Alpha, 0):
		return fmt.Errorf("alpha must be positive and finite, got %v", h.Alpha)
	case !(h.Beta > 0) || math.IsInf(h.Beta, 0):
		return fmt.Errorf("beta must be positive and finite, got %v", h.Beta)
	case h.Alpha+float64(n) <= float64(d-1):
		return fmt.Errorf("alpha + N must exceed d − 1 = %d (the input dimension less one), below which the predictive density is improper; got alpha = %v with N = %d", d-1, h.Alpha, n)
	}
	return nil
}

// Model is a kernel Student-t density fitted to data. It is immutable and
// safe for concurrent use.
type Model struct {
	k     kernels.Kernel
	h     Hyper
	x     *mat.Dense // training rows, N×d
	n, d  int
	c     float64 // N + β
	gamma float64 // (1+β+N)/(β+N)
	sumK  float64 // 1ᵀK1
	u     []float64
	t     []float64 // L⁻¹1, L⁻¹K1
	uu    float64   // |L⁻¹1|² = 1ᵀB⁻¹1
	chol  *mat.Cholesky
	shift bool // shift-invariant kernel: no Jacobian factor
}

// Fit fits the density to the rows of x: one Gram matrix and one Cholesky
// factorisation of B = I + K/σ0².
func Fit(k kernels.Kernel, x *mat.Dense, h Hyper) (*Model, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("kst: needs at least one training point, got none")
	}
	if err := kernels.CheckData(x, "the data"); err != nil {
		return nil, fmt.Errorf("kst: %v", err)
	}
	n, d := x.Dims()
	if err := h.Check(n, d); err != nil {
		return nil, fmt.Errorf("kst: %v", err)
	}
	if kd := k.Dim(); kd != 0 && kd != d {
		return nil, fmt.Errorf("kst: %s has %d lengthscales but the data has %d columns", k, kd, d)
	}
	g, err := kernels.Gram(k, x)
	if err != nil {
		return nil, fmt.Errorf("kst: %v", err)
	}
	m := &Model{k: k, h: h, x: mat.DenseCopyOf(x), n: n, d: d, shift: ShiftInvariant(k)}
	m.c = float64(n) + h.Beta
	m.gamma = (1 + m.c) / m.c
	rowSum := make([]float64, n)
	s2 := h.Sigma0 * h.Sigma0
	b := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := g.At(i, j)
			rowSum[i] += v
			if j != i {
				rowSum[j] += v
			}
			bij := v / s2
			if i == j {
				bij++
			}
			b.SetSym(i, j, bij)
		}
	}
	for _, v := range rowSum {
		m.sumK += v
	}
	m.chol = new(mat.Cholesky)
	if _, ok := linalg.CholeskyJitter(m.chol, b, false); !ok {
		return nil, fmt.Errorf("kst: I + K/σ0² is not numerically positive definite (is %s positive definite on this data?)", k)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	m.u = m.lowerSolve(ones)
	m.t = m.lowerSolve(rowSum)
	m.uu = linalg.Dot(m.u, m.u)
	return m, nil
}

// lowerSolve returns L⁻¹v for B = LLᵀ = UᵀU.
func (m *Model) lowerSolve(v []float64) []float64 {
	out := append([]float64(nil), v...)
	u := m.chol.RawU().(*mat.TriDense).RawTriangular()
	blas64.Trsv(blas.Trans, u, blas64.Vector{N: len(out), Data: out, Inc: 1})
	return out
}

// N is the number of training points.
func (m *Model) N() int { return m.n }

// Dim is the input dimension.
func (m *Model) Dim() int { return m.d }

// Hyper returns the hyperparameters.
func (m *Model) Hyper() Hyper { return m.h }

// Kernel returns the kernel.
func (m *Model) Kernel() kernels.Kernel { return m.k }

// ShiftInvariant reports whether the Jacobian factor is left out.
func (m *Model) ShiftInvariant() bool { return m.shift }

// exponent is (1 + N + α)/2, the power of the Student-t form.
func (m *Model) exponent() float64 { return (1 + float64(m.n) + m.h.Alpha) / 2 }
