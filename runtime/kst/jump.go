package kst

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// jumpProposal is the independence proposal of Fantasy's jump moves: with
// probability ½ a uniform point of the box [−B, B]^d (when there is a box),
// otherwise a Gaussian around one of the points so far, chosen uniformly,
// with per-coordinate sd τ_j = 1.06·sd_j·n^(−1/5) (Silverman's rule for the
// n points so far, so the Gaussians are about a cluster wide rather than
// the data's width), at least B/100 (or 0.01 without a box). It depends only on the points before the one being
// drawn, so the Metropolis–Hastings steps with it leave that point's
// predictive density invariant; and it has mass near every cluster and over
// the whole box, so a far cluster a local chain would miss is proposed
// often.
type jumpProposal struct {
	pts *mat.Dense
	box float64
	tau []float64
}

func newJumpProposal(pts *mat.Dense, box float64) *jumpProposal {
	n, d := pts.Dims()
	floor := 0.01
	if box > 0 {
		floor = box / 100
	}
	tau := make([]float64, d)
	for j := range tau {
		var s, s2 float64
		for i := 0; i < n; i++ {
			v := pts.At(i, j)
			s += v
			s2 += v * v
		}
		m := s / float64(n)
		tau[j] = max(1.06*math.Sqrt(max(s2/float64(n)-m*m, 0))*math.Pow(float64(n), -0.2), floor)
	}
	return &jumpProposal{pts: pts, box: box, tau: tau}
}

// draw returns a proposal.
func (q *jumpProposal) draw(r *rand.Rand) []float64 {
	n, d := q.pts.Dims()
	x := make([]float64, d)
	if q.box > 0 && r.Float64() < 0.5 {
		for j := range x {
			x[j] = q.box * (2*r.Float64() - 1)
		}
		return x
	}
	c := q.pts.RawRowView(r.IntN(n))
	for j := range x {
		x[j] = c[j] + q.tau[j]*r.NormFloat64()
	}
	return x
}

// logDensity is the log proposal density at x (up to a constant that is
// the same everywhere).
func (q *jumpProposal) logDensity(x []float64) float64 {
	n, d := q.pts.Dims()
	lg := make([]float64, n)
	top := math.Inf(-1)
	for i := 0; i < n; i++ {
		u := 0.0
		for j, v := range q.pts.RawRowView(i) {
			t := (x[j] - v) / q.tau[j]
			u += t * t
		}
		lg[i] = -u / 2
		top = max(top, lg[i])
	}
	s := 0.0
	for _, v := range lg {
		s += math.Exp(v - top)
	}
	lnorm := 0.0 // log of the Gaussian normaliser Π τ_j √(2π)
	for _, t := range q.tau {
		lnorm += math.Log(t * math.Sqrt(2*math.Pi))
	}
	lgauss := top + math.Log(s/float64(n)) - lnorm
	if q.box == 0 {
		return lgauss
	}
	lunif := -float64(d) * math.Log(2*q.box)
	if !q.inBox(x) {
		return math.Log(0.5) + lgauss
	}
	return math.Log(0.5) + logAddExp(lgauss, lunif)
}

func (q *jumpProposal) inBox(x []float64) bool {
	for _, v := range x {
		if math.Abs(v) >= q.box {
			return false
		}
	}
	return true
}

func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// run makes k independence Metropolis–Hastings steps from x for the
// density m restricted to the box: accept y with probability
// min(1, m(y)q(x) / (m(x)q(y))); proposals outside the box are rejected.
func (q *jumpProposal) run(m *Model, x []float64, k int, r *rand.Rand) []float64 {
	grad := make([]float64, len(x))
	lx := m.LogPDFGrad(grad, x) - q.logDensity(x)
	for s := 0; s < k; s++ {
		y := q.draw(r)
		if q.box > 0 && !q.inBox(y) {
			continue
		}
		ly := m.LogPDFGrad(grad, y) - q.logDensity(y)
		if math.IsNaN(ly) {
			continue
		}
		if ly >= lx || r.Float64() < math.Exp(ly-lx) {
			x, lx = y, ly
		}
	}
	return x
}
