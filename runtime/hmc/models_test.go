package hmc

import (
	"math"
	"sync/atomic"
)

// Test targets, each with its exact log density and gradient.

// gauss2 is a bivariate normal with unit variances and correlation rho.
type gauss2 struct{ rho float64 }

func (m gauss2) Dim() int { return 2 }
func (m gauss2) LogDensity(grad, q []float64) (float64, error) {
	r := m.rho
	c := 1 / (1 - r*r)
	grad[0] = -c * (q[0] - r*q[1])
	grad[1] = -c * (q[1] - r*q[0])
	return -0.5 * c * (q[0]*q[0] - 2*r*q[0]*q[1] + q[1]*q[1]), nil
}

// funnel is Neal's funnel: v ~ normal(0, 3), x_i ~ normal(0, e^{v/2}).
type funnel struct{ d int }

func (m funnel) Dim() int { return m.d }
func (m funnel) LogDensity(grad, q []float64) (float64, error) {
	v := q[0]
	lp := -v * v / 18
	grad[0] = -v / 9
	ev := math.Exp(-v)
	for i := 1; i < m.d; i++ {
		x := q[i]
		lp += -0.5*x*x*ev - 0.5*v
		grad[i] = -x * ev
		grad[0] += 0.5*x*x*ev - 0.5
	}
	return lp, nil
}

// conjugate is the posterior of a normal mean μ with prior normal(m0, s0)
// and n observations with known sd s: normal with precision 1/s0² + n/s².
type conjugate struct {
	m0, s0, s float64
	y         []float64
}

func (m conjugate) Dim() int { return 1 }
func (m conjugate) LogDensity(grad, q []float64) (float64, error) {
	mu := q[0]
	lp := -0.5 * (mu - m.m0) * (mu - m.m0) / (m.s0 * m.s0)
	grad[0] = -(mu - m.m0) / (m.s0 * m.s0)
	for _, y := range m.y {
		lp -= 0.5 * (y - mu) * (y - mu) / (m.s * m.s)
		grad[0] += (y - mu) / (m.s * m.s)
	}
	return lp, nil
}

func (m conjugate) posterior() (mean, sd float64) {
	prec := 1/(m.s0*m.s0) + float64(len(m.y))/(m.s*m.s)
	sum := 0.0
	for _, y := range m.y {
		sum += y
	}
	mean = (m.m0/(m.s0*m.s0) + sum/(m.s*m.s)) / prec
	return mean, math.Sqrt(1 / prec)
}

// counted counts evaluations of a model.
type counted struct {
	Model
	n *atomic.Int64
}

func (c counted) LogDensity(grad, q []float64) (float64, error) {
	c.n.Add(1)
	return c.Model.LogDensity(grad, q)
}
