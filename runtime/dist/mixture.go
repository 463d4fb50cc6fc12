package dist

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// mixture is a finite mixture Σ_k w_k p_k(x). Its parameter vector is the K
// weights followed by each component's parameters in order.
type mixture struct {
	comps  []Family
	offset []int // start of component k's parameters in the vector
	names  []string
}

// NewMixture returns the family of mixtures of the given components.
func NewMixture(components []Family) Family {
	m := &mixture{comps: components}
	k := len(components)
	for i := 0; i < k; i++ {
		m.names = append(m.names, fmt.Sprintf("w.%d", i+1))
	}
	off := k
	for i, c := range components {
		m.offset = append(m.offset, off)
		for _, n := range c.ParamNames() {
			m.names = append(m.names, fmt.Sprintf("%s.%d", n, i+1))
		}
		off += len(c.ParamNames())
	}
	return m
}

func (m *mixture) Name() string         { return "mixture" }
func (m *mixture) ParamNames() []string { return m.names }
func (m *mixture) Discrete() bool {
	for _, c := range m.comps {
		if !c.Discrete() {
			return false
		}
	}
	return true
}

func (m *mixture) part(p []float64, k int) []float64 {
	return p[m.offset[k] : m.offset[k]+len(m.comps[k].ParamNames())]
}

func (m *mixture) Check(p []float64) error {
	if len(p) != len(m.names) {
		panic(fmt.Sprintf("dist: mixture takes %d parameters, got %d", len(m.names), len(p)))
	}
	k := len(m.comps)
	if k == 0 {
		return fmt.Errorf("mixture: needs at least one component")
	}
	sum := 0.0
	for i, w := range p[:k] {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("mixture: weight %d must be non-negative, got %v", i+1, w)
		}
		sum += w
	}
	if math.Abs(sum-1) > 1e-8 {
		return fmt.Errorf("mixture: the weights must sum to 1, got %v", sum)
	}
	for i, c := range m.comps {
		if err := c.Check(m.part(p, i)); err != nil {
			return fmt.Errorf("mixture component %d: %w", i+1, err)
		}
	}
	return nil
}

func (m *mixture) LogProb(x float64, p []float64) float64 {
	k := len(m.comps)
	best := -inf
	var buf [8]float64 // keeps small mixtures off the heap
	lps := buf[:0]
	if k > len(buf) {
		lps = make([]float64, 0, k)
	}
	lps = lps[:k]
	for i, c := range m.comps {
		lps[i] = math.Log(p[i]) + c.LogProb(x, m.part(p, i))
		best = math.Max(best, lps[i])
	}
	if math.IsInf(best, -1) {
		return best
	}
	s := 0.0
	for _, lp := range lps {
		s += math.Exp(lp - best)
	}
	return best + math.Log(s)
}

// LogProbGrad uses log-sum-exp, so it stays finite far in the tails where
// every component's density underflows; the responsibilities
// r_k = w_k p_k(x) / p(x) weight each component's derivatives.
func (m *mixture) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	lp := m.LogProb(x, p)
	clear(dp)
	if math.IsInf(lp, -1) {
		return lp, 0
	}
	dx := 0.0
	for i, c := range m.comps {
		part := m.part(p, i)
		cdp := dp[m.offset[i] : m.offset[i]+len(part)]
		clp, cdx := c.LogProbGrad(cdp, x, part)
		ratio := math.Exp(clp - lp) // p_k(x)/p(x)
		dp[i] = ratio
		r := p[i] * ratio
		for j := range cdp {
			cdp[j] *= r
		}
		dx += r * cdx
	}
	return lp, dx
}

func (m *mixture) Rand(r *rand.Rand, p []float64) float64 {
	u := r.Float64()
	k := len(m.comps)
	for i := 0; i < k-1; i++ {
		if u < p[i] {
			return m.comps[i].Rand(r, m.part(p, i))
		}
		u -= p[i]
	}
	return m.comps[k-1].Rand(r, m.part(p, k-1))
}

func (m *mixture) Mean(p []float64) float64 {
	s := 0.0
	for i, c := range m.comps {
		if p[i] > 0 {
			s += p[i] * c.Mean(m.part(p, i))
		}
	}
	return s
}

func (m *mixture) StdDev(p []float64) float64 {
	mean := m.Mean(p)
	v := 0.0
	for i, c := range m.comps {
		if p[i] == 0 {
			continue
		}
		mu, sd := c.Mean(m.part(p, i)), c.StdDev(m.part(p, i))
		v += p[i] * (sd*sd + mu*mu)
	}
	return math.Sqrt(v - mean*mean)
}

// Support is the smallest interval holding every component's support.
func (m *mixture) Support(p []float64) (float64, float64) {
	lo, hi := inf, -inf
	for i, c := range m.comps {
		l, h := c.Support(m.part(p, i))
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	return lo, hi
}

func (m *mixture) String() string {
	names := make([]string, len(m.comps))
	for i, c := range m.comps {
		names[i] = c.Name()
	}
	return "mixture of " + strings.Join(names, ", ")
}
