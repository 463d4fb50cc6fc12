package dpm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// Settings configure Fit. Zero values take the defaults of Defaults.
type Settings struct {
	// Alpha is the DP concentration (default 1).
	Alpha float64
	// Scale is the prior's typical cluster sd in every direction: Ψ0 =
	// Scale²(ν0−d−1)I, so E[Σ] = Scale²I. Default: half the data's
	// root-mean-square column sd.
	Scale float64
	// Kappa0 is the prior's precision on cluster means relative to Σ.
	// Default Scale²/v with v the mean column variance, so the prior on a
	// cluster mean spreads over the data.
	Kappa0 float64
	// Nu0 is the inverse-Wishart degrees of freedom (default d+2, the least
	// with a finite prior mean of Σ). Must exceed d+1.
	Nu0 float64
	// Iter sweeps in all, of which the first Burn are discarded; every
	// Thin-th sweep after that is kept for the density.
	Iter, Burn, Thin int
	// Seed seeds the sampler (stream rng.DPM).
	Seed uint64
}

// Defaults fills the zero fields of s from the data x (n×d); Mu0 is the
// column means.
func Defaults(s Settings, x *mat.Dense) (Settings, []float64) {
	n, d := x.Dims()
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	v := 0.0
	for i := 0; i < n; i++ {
		for j, x := range x.RawRowView(i) {
			v += (x - mean[j]) * (x - mean[j])
		}
	}
	v /= float64(n * d)
	if !(v > 0) {
		v = 1 // every column constant: any positive scale will do
	}
	if s.Alpha == 0 {
		s.Alpha = 1
	}
	if s.Scale == 0 {
		s.Scale = math.Sqrt(v) / 2
	}
	if s.Kappa0 == 0 {
		s.Kappa0 = s.Scale * s.Scale / v
	}
	if s.Nu0 == 0 {
		s.Nu0 = float64(d) + 2
	}
	if s.Iter == 0 {
		s.Iter = 100
	}
	if s.Burn == 0 && s.Iter > 1 {
		s.Burn = s.Iter / 2
	}
	if s.Thin == 0 {
		s.Thin = 5
	}
	return s, mean
}

// Model is a fitted DPM: the kept sweeps' clusters and weights.
type Model struct {
	d       int
	samples [][]component
	// Settings are the settings used, defaults filled in.
	Settings Settings
	// Clusters is the number of clusters at each kept sweep.
	Clusters []int
}

// component is one term of the predictive mixture: log weight and cluster.
type component struct {
	logw float64
	c    *cluster
}

// Fit runs the collapsed Gibbs sampler on the rows of x.
func Fit(ctx context.Context, x *mat.Dense, s Settings) (*Model, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("dpm: needs at least one point, got none")
	}
	if err := kernels.CheckData(x, "the data"); err != nil {
		return nil, fmt.Errorf("dpm: %v", err)
	}
	_, d := x.Dims()
	s, mean := Defaults(s, x)
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("dpm: %s must be positive and finite, got %v", name, v)
		}
		return nil
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"alpha", s.Alpha}, {"scale", s.Scale}, {"kappa0", s.Kappa0}, {"nu0", s.Nu0}} {
		if err := pos(c.name, c.v); err != nil {
			return nil, err
		}
	}
	if !(s.Nu0 > float64(d)+1) {
		return nil, fmt.Errorf("dpm: nu0 must exceed d + 1 = %d (the prior mean of Σ is finite only then), got %v", d+1, s.Nu0)
	}
	if s.Iter < 1 || s.Burn < 0 || s.Burn >= s.Iter || s.Thin < 1 {
		return nil, fmt.Errorf("dpm: needs iter ≥ 1, 0 ≤ burn < iter and thin ≥ 1, got iter %d, burn %d, thin %d", s.Iter, s.Burn, s.Thin)
	}
	psi := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		psi.SetSym(j, j, s.Scale*s.Scale*(s.Nu0-float64(d)-1))
	}
	p := &Prior{Mu0: mean, Kappa0: s.Kappa0, Nu0: s.Nu0, Psi0: psi}
	g := newGibbs(p, x, s.Alpha, rng.New(s.Seed, rng.DPM))
	m := &Model{d: d, Settings: s}
	task := progress.Start(ctx, "sweeps", s.Iter)
	defer task.Done()
	for it := 0; it < s.Iter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g.sweep()
		task.Add(1)
		if it >= s.Burn && (it-s.Burn)%s.Thin == 0 {
			m.samples = append(m.samples, g.snapshot(s.Alpha))
			m.Clusters = append(m.Clusters, len(g.clusters))
		}
	}
	return m, nil
}

// gibbs is the sampler's state: the assignment of each row and the
// clusters (nil once emptied; reused slots are compacted each sweep).
type gibbs struct {
	p        *Prior
	x        *mat.Dense
	rnd      *rand.Rand
	alpha    float64
	z        []int
	clusters []*cluster
	prior    *cluster
	work     []float64
	logp     []float64
}

func newGibbs(p *Prior, x *mat.Dense, alpha float64, rnd *rand.Rand) *gibbs {
	_, d := x.Dims()
	return &gibbs{p: p, x: x, alpha: alpha, rnd: rnd, prior: empty(p), work: make([]float64, d)}
}

// sweep visits every row once (the first sweep seats them one by one, as
// the Chinese restaurant process would), then refactors every cluster
// from its members.
func (g *gibbs) sweep() {
	n, _ := g.x.Dims()
	first := g.z == nil
	if first {
		g.z = make([]int, n)
	}
	for i := 0; i < n; i++ {
		xi := g.x.RawRowView(i)
		if !first {
			c := g.clusters[g.z[i]]
			if c.n == 1 {
				g.drop(g.z[i])
			} else if !c.remove(xi, g.work) {
				g.clusters[g.z[i]] = rebuild(g.p, g.x, g.members(g.z[i], i), g.work)
			}
		}
		g.z[i] = g.choose(xi)
		if g.z[i] == len(g.clusters) {
			g.clusters = append(g.clusters, empty(g.p))
		}
		if !g.clusters[g.z[i]].add(xi, g.work) {
			g.clusters[g.z[i]] = rebuild(g.p, g.x, g.members(g.z[i], -1), g.work)
		}
	}
	for k := range g.clusters {
		g.clusters[k] = rebuild(g.p, g.x, g.members(k, -1), g.work)
	}
}

// drop deletes cluster k (its last point is leaving), moving the last
// cluster into its slot.
func (g *gibbs) drop(k int) {
	last := len(g.clusters) - 1
	g.clusters[k] = g.clusters[last]
	g.clusters = g.clusters[:last]
	for i, v := range g.z {
		if v == last {
			g.z[i] = k
		}
	}
}

// members lists the rows in cluster k, leaving out row skip.
func (g *gibbs) members(k, skip int) []int {
	var out []int
	for i, v := range g.z {
		if v == k && i != skip {
			out = append(out, i)
		}
	}
	return out
}

// choose draws the cluster of x: an existing one with weight n_c·t_c(x) or
// a new one (index len(clusters)) with weight α·t_0(x).
func (g *gibbs) choose(x []float64) int {
	k := len(g.clusters)
	g.logp = g.logp[:0]
	top := math.Inf(-1)
	for _, c := range g.clusters {
		v := math.Log(float64(c.n)) + c.logPred(x, g.work)
		g.logp = append(g.logp, v)
		top = max(top, v)
	}
	v := math.Log(g.alpha) + g.prior.logPred(x, g.work)
	g.logp = append(g.logp, v)
	top = max(top, v)
	sum := 0.0
	for j, v := range g.logp {
		g.logp[j] = math.Exp(v - top)
		sum += g.logp[j]
	}
	u := g.rnd.Float64() * sum
	for j, w := range g.logp {
		u -= w
		if u < 0 {
			return j
		}
	}
	return k
}

// snapshot records the predictive mixture of the current partition.
func (g *gibbs) snapshot(alpha float64) []component {
	n, _ := g.x.Dims()
	lz := math.Log(float64(n) + alpha)
	out := make([]component, 0, len(g.clusters)+1)
	for _, c := range g.clusters {
		out = append(out, component{logw: math.Log(float64(c.n)) - lz, c: c.clone()})
	}
	return append(out, component{logw: math.Log(alpha) - lz, c: g.prior})
}
