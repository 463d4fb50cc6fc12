package kst

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// LogPDFGrad returns log q(x) at one point and writes ∇_x log q(x) into
// grad (length Dim), for samplers. It costs N kernel gradients and two
// triangular solves. With Q = φ̃ᵀφ̃/σ0² − vᵀA⁻¹v/σ0⁴ (package comment),
//
//	∂Q/∂x = (∂k(x,x)/∂x − 2 Σ_i ∂k(x,x_i)/∂x /(N+β))/σ0² − 2 Σ_i (A⁻¹v)_i ∂k(x,x_i)/∂x /σ0⁴,
//
// ∂k(x,x)/∂x = 2 GradX(x, x) for a symmetric kernel, and A⁻¹v is
// L⁻ᵀ(L⁻¹v − L⁻¹1·(1ᵀB⁻¹v)/(β + 1ᵀB⁻¹1)). For kernels that are not
// shift-invariant the Jacobian term's gradient is taken by central
// differences of LogJacobian.
func (m *Model) LogPDFGrad(grad, x []float64) float64 {
	d := m.d
	gk := make([]float64, m.n*d) // ∂k(x, x_i)/∂x, row i
	w := make([]float64, m.n)
	sumKx := 0.0
	for i := 0; i < m.n; i++ {
		w[i] = m.k.GradX(gk[i*d:(i+1)*d], x, m.x.RawRowView(i))
		sumKx += w[i]
	}
	dkxx := make([]float64, d)
	kxx := m.k.GradX(dkxx, x, x)
	u := m.chol.RawU().(*mat.TriDense).RawTriangular()
	blas64.Trsv(blas.Trans, u, blas64.Vector{N: m.n, Data: w, Inc: 1})
	q := m.quad(kxx, sumKx, w) // w is now L⁻¹v
	uw := 0.0
	for i, v := range w {
		uw += m.u[i] * v
	}
	f := uw / (m.h.Beta + m.uu)
	for i := range w {
		w[i] -= m.u[i] * f
	}
	blas64.Trsv(blas.NoTrans, u, blas64.Vector{N: m.n, Data: w, Inc: 1}) // w = A⁻¹v
	s2 := m.h.Sigma0 * m.h.Sigma0
	scale := -m.exponent() / (m.gamma + q)
	for j := 0; j < d; j++ {
		a, b := 0.0, 0.0
		for i := 0; i < m.n; i++ {
			g := gk[i*d+j]
			a += g
			b += w[i] * g
		}
		dq := (2*dkxx[j]-2*a/m.c)/s2 - 2*b/(s2*s2)
		grad[j] = scale * dq
	}
	lp := -m.exponent() * math.Log(m.gamma+q)
	if !m.shift {
		lp += LogJacobian(m.k, x)
		y := append([]float64(nil), x...)
		for j := range y {
			h := 1e-5 * max(1, math.Abs(x[j]))
			y[j] = x[j] + h
			up := LogJacobian(m.k, y)
			y[j] = x[j] - h
			dn := LogJacobian(m.k, y)
			y[j] = x[j]
			grad[j] += (up - dn) / (2 * h)
		}
	}
	return lp
}
