package hmc

import (
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/runtime/linalg"
)

// metric is the inverse mass matrix M⁻¹ of the kinetic energy ½ pᵀM⁻¹p.
type metric struct {
	dim   int
	dense bool
	diag  []float64 // M⁻¹ when diagonal
	minv  []float64 // M⁻¹ when dense, row-major
	chol  []float64 // lower Cholesky factor L of a dense M⁻¹ = LLᵀ
}

func unitMetric(dim int, dense bool) *metric {
	m := &metric{dim: dim, dense: dense}
	if dense {
		m.minv = make([]float64, dim*dim)
		for i := 0; i < dim; i++ {
			m.minv[i*dim+i] = 1
		}
		m.chol = append([]float64(nil), m.minv...)
	} else {
		m.diag = make([]float64, dim)
		for i := range m.diag {
			m.diag[i] = 1
		}
	}
	return m
}

// setDense installs a new dense M⁻¹, returning false when it is not
// positive definite (the old one is kept).
func (m *metric) setDense(minv []float64) bool {
	l := make([]float64, m.dim*m.dim)
	if !linalg.Cholesky(l, minv, m.dim) {
		return false
	}
	m.minv, m.chol = minv, l
	return true
}

// velocity writes dst = M⁻¹p, the derivative of the kinetic energy ("p♯").
func (m *metric) velocity(dst, p []float64) {
	if !m.dense {
		dst, p = dst[:len(m.diag)], p[:len(m.diag)]
		for i, v := range m.diag {
			dst[i] = v * p[i]
		}
		return
	}
	d := m.dim
	for i := 0; i < d; i++ {
		row := m.minv[i*d : (i+1)*d]
		s := 0.0
		for j, v := range row {
			s += v * p[j]
		}
		dst[i] = s
	}
}

// samplePM draws p ~ N(0, M): with M⁻¹ = LLᵀ, p = L⁻ᵀz for z standard
// normal.
func (m *metric) samplePM(p []float64, rng *rand.Rand) {
	if !m.dense {
		for i, v := range m.diag {
			p[i] = rng.NormFloat64() / math.Sqrt(v)
		}
		return
	}
	d := m.dim
	for i := range p {
		p[i] = rng.NormFloat64()
	}
	for i := d - 1; i >= 0; i-- { // solve Lᵀp = z
		s := p[i]
		for k := i + 1; k < d; k++ {
			s -= m.chol[k*d+i] * p[k]
		}
		p[i] = s / m.chol[i*d+i]
	}
}

// values returns a copy of M⁻¹ (diagonal or dense row-major).
func (m *metric) values() []float64 {
	if m.dense {
		return append([]float64(nil), m.minv...)
	}
	return append([]float64(nil), m.diag...)
}
