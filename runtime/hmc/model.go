package hmc

import (
	"time"

	"github.com/kml-lang/kml/runtime/inference"
)

// Model is a differentiable log density on R^Dim (the unconstrained scale),
// defined once in package inference. One Model value is used by one
// goroutine at a time; Sample asks a factory for one Model per chain.
type Model = inference.Model

// Metric is the form of the mass matrix the sampler adapts.
type Metric int

const (
	// Diag adapts a diagonal inverse metric (the default).
	Diag Metric = iota
	// Dense adapts a full inverse metric.
	Dense
)

// InitMethod is how chains choose their starting points.
type InitMethod int

const (
	// InitPathfinder runs a few seeded quasi-Newton paths, fits a Gaussian
	// along each, and resamples starting points by importance weight
	// (inference.Pathfinder). It is the default: chains start where the mass is.
	InitPathfinder InitMethod = iota
	// InitUniform draws each coordinate uniformly in (−2, 2), as Stan does.
	InitUniform
)

// Settings configure Sample. The zero value works.
type Settings struct {
	// Chains is the number of chains; default 4.
	Chains int
	// Warmup is the number of warm-up iterations per chain; default 1000.
	// Zero is allowed with NoWarmup.
	Warmup int
	// NoWarmup makes Warmup = 0 mean no warm-up rather than the default.
	NoWarmup bool
	// Draws is the number of kept iterations per chain; default 1000.
	Draws int
	// Seed seeds every random stream; chain c uses its own stream derived
	// from Seed and c, so results do not depend on Workers.
	Seed uint64
	// AdaptDelta is the target mean acceptance statistic; default 0.8.
	AdaptDelta float64
	// MaxDepth bounds the trajectory's tree depth; default 10.
	MaxDepth int
	// Metric is Diag (default) or Dense.
	Metric Metric
	// Init is how starting points are chosen; default InitPathfinder.
	Init InitMethod
	// InitPoint fixes starting coordinates on the unconstrained scale; NaN
	// entries (or a nil slice) are chosen by Init.
	InitPoint []float64
	// Workers bounds the chains run at once; default GOMAXPROCS.
	Workers int
}

// Result is the outcome of Sample.
type Result struct {
	Dim           int
	Warmup, Draws int
	Chains        []*Chain
	// GradEvals counts log density evaluations over all chains, warm-up
	// and initialisation included.
	GradEvals int64
	// Elapsed is the wall time of the whole run.
	Elapsed time.Duration
	// InitNote says how initial points were found (e.g. that Pathfinder
	// fell back to uniform draws), or "".
	InitNote string
	// AdaptDelta is the target acceptance statistic the step size was
	// adapted to (0 when no sampler ran), for the divergence advice.
	AdaptDelta float64
}

// Chain is one chain's kept draws and the sampler's statistics for each.
type Chain struct {
	// Draws holds the kept draws on the unconstrained scale, draws × Dim.
	Draws [][]float64
	// Per draw: lp__, accept_stat__, stepsize__, treedepth__,
	// n_leapfrog__, divergent__, energy__.
	LP, AcceptStat, StepSize, Energy []float64
	TreeDepth, NLeapfrog             []int
	Divergent                        []bool
	// WarmupDivergences counts divergent transitions during warm-up.
	WarmupDivergences int
	// Epsilon is the adapted step size.
	Epsilon float64
	// InvMetric is the adapted inverse metric: Dim values (diagonal) or
	// Dim×Dim row-major (dense).
	InvMetric []float64
	// Init is the chain's starting point (unconstrained).
	Init []float64
}

// Divergences counts the divergent kept transitions.
func (c *Chain) Divergences() int {
	n := 0
	for _, d := range c.Divergent {
		if d {
			n++
		}
	}
	return n
}
