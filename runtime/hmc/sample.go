package hmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/rng"
)

// withDefaults fills the zero fields of s.
func (s Settings) withDefaults() Settings {
	if s.Chains <= 0 {
		s.Chains = 4
	}
	if s.Warmup <= 0 && !s.NoWarmup {
		s.Warmup = 1000
	}
	if s.Draws <= 0 {
		s.Draws = 1000
	}
	if s.AdaptDelta <= 0 || s.AdaptDelta >= 1 {
		s.AdaptDelta = 0.8
	}
	if s.MaxDepth <= 0 {
		s.MaxDepth = 10
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s
}

// chainRand is chain c's random stream: the same for a seed whatever the
// number of workers.
func chainRand(seed uint64, c int) *rand.Rand {
	return rng.New(seed, rng.Chain.Index(c))
}

// Sample draws from the model's density with NUTS. It runs the chains in
// parallel (at most Workers at once), each with one Model from newModel.
// A cancelled ctx stops the run promptly and Sample returns ctx.Err().
func Sample(ctx context.Context, newModel func() (Model, error), s Settings) (*Result, error) {
	s = s.withDefaults()
	start := time.Now()
	models, err := inference.NewModels(newModel, s.Chains)
	if err != nil {
		return nil, err
	}
	dim := models[0].Dim()
	if dim == 0 {
		return nil, errors.New("hmc: the model has no free parameters to sample")
	}
	if s.InitPoint != nil && len(s.InitPoint) != dim {
		panic(fmt.Sprintf("hmc: InitPoint has %d values, the model %d", len(s.InitPoint), dim))
	}
	res := &Result{Dim: dim, Warmup: s.Warmup, Draws: s.Draws, Chains: make([]*Chain, s.Chains), AdaptDelta: s.AdaptDelta}
	progress := newProgressBar(ctx, s.Chains, s.Warmup, s.Draws)
	defer progress.finish()
	progress.initialising(s.Init == InitPathfinder && s.InitPoint == nil)
	inits, evals, note, err := initialPoints(ctx, models, s)
	progress.initialised()
	res.GradEvals += evals
	res.InitNote = note
	if err != nil {
		return nil, err
	}
	// At most Workers chains run at once, each on a model no other running
	// chain holds; chain c's stream depends on c alone.
	errs := make([]error, s.Chains)
	var gradEvals atomic.Int64
	pool := models[:min(s.Workers, len(models))]
	panics := inference.ForEach(pool, s.Chains, func(c int, m Model) {
		chain, n, err := runChain(ctx, m, inits[c], chainRand(s.Seed, c), s, progress)
		gradEvals.Add(n)
		res.Chains[c], errs[c] = chain, err
	})
	for c, p := range panics {
		if p != nil {
			// A panic in a chain (a bug in a model) must not take the
			// process down; it becomes the run's error.
			res.Chains[c], errs[c] = nil, fmt.Errorf("hmc: chain %d: %w", c+1, p)
		}
	}
	res.GradEvals += gradEvals.Load()
	res.Elapsed = time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// runChain warms up one chain from init and then keeps s.Draws transitions.
func runChain(ctx context.Context, m Model, init []float64, rng *rand.Rand, s Settings, progress *progressBar) (*Chain, int64, error) {
	dim := m.Dim()
	met := unitMetric(dim, s.Metric == Dense)
	sm := newSampler(m, rng, ctx, met, s.MaxDepth)
	if lp := sm.setPosition(init); math.IsInf(lp, -1) {
		return nil, sm.gradEvals, errors.New("hmc: the log density is not finite at the initial point")
	}
	ch := &Chain{Init: append([]float64(nil), init...)}
	if s.Warmup > 0 {
		sm.initStepSize()
		da := newDualAverage(s.AdaptDelta)
		da.restart(sm.eps)
		win := newWindows(s.Warmup)
		est := newCovEstimator(dim, s.Metric == Dense)
		for it := 0; it < s.Warmup; it++ {
			st := sm.transition()
			if sm.cancelled != nil {
				return nil, sm.gradEvals, sm.cancelled
			}
			if st.divergent {
				ch.WarmupDivergences++
			}
			da.learn(&sm.eps, st.accept)
			if win.inWindow() {
				est.add(sm.z.q)
			}
			if win.endOfWindow() {
				win.computeNextWindow()
				cov := est.regularised()
				if s.Metric == Dense {
					met.setDense(cov)
				} else {
					met.diag = cov
				}
				est.restart()
				sm.initStepSize()
				da.restart(sm.eps)
			}
			win.counter++
			progress.add(true)
		}
		sm.eps = da.final()
	}
	ch.Epsilon = sm.eps
	ch.InvMetric = met.values()
	n := s.Draws
	ch.Draws = make([][]float64, n)
	kept := make([]float64, n*dim) // the rows of Draws, each capped at its own
	ch.LP, ch.AcceptStat, ch.StepSize, ch.Energy = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	ch.TreeDepth, ch.NLeapfrog, ch.Divergent = make([]int, n), make([]int, n), make([]bool, n)
	for it := 0; it < n; it++ {
		st := sm.transition()
		if sm.cancelled != nil {
			return nil, sm.gradEvals, sm.cancelled
		}
		ch.Draws[it] = kept[it*dim : (it+1)*dim : (it+1)*dim]
		copy(ch.Draws[it], sm.z.q)
		ch.LP[it] = sm.z.lp
		ch.AcceptStat[it] = st.accept
		ch.StepSize[it] = sm.eps
		ch.TreeDepth[it] = st.depth
		ch.NLeapfrog[it] = st.nLeapfrog
		ch.Divergent[it] = st.divergent
		ch.Energy[it] = st.energy
		progress.add(false)
	}
	return ch, sm.gradEvals, nil
}

// initialPoints chooses each chain's starting point.
func initialPoints(ctx context.Context, models []Model, s Settings) ([][]float64, int64, string, error) {
	chains := len(models)
	inits := make([][]float64, chains)
	var evals int64
	fullyFixed := s.InitPoint != nil
	for _, x := range s.InitPoint {
		if math.IsNaN(x) {
			fullyFixed = false
		}
	}
	if fullyFixed {
		for c := range inits {
			inits[c] = append([]float64(nil), s.InitPoint...)
		}
		return inits, 0, "", nil
	}
	if s.Init == InitPathfinder {
		pts, n, err := inference.Pathfinder(ctx, models, chains, s.Seed, s.InitPoint)
		evals += n
		if err == nil {
			return pts, evals, "", nil
		}
		if ctx.Err() != nil {
			return nil, evals, "", ctx.Err()
		}
		note := "pathfinder initialisation failed (" + err.Error() + "); chains start from uniform draws in (-2, 2)"
		pts, n, err = uniformInits(models, s)
		return pts, evals + n, note, err
	}
	pts, n, err := uniformInits(models, s)
	return pts, evals + n, "", err
}

func uniformInits(models []Model, s Settings) ([][]float64, int64, error) {
	inits := make([][]float64, len(models))
	var evals int64
	for c, m := range models {
		rnd := rng.New(s.Seed, rng.UniformInit.Index(c))
		q, n, err := inference.UniformInit(m, s.InitPoint, rnd, 2)
		evals += n
		if err != nil {
			return nil, evals, err
		}
		inits[c] = q
	}
	return inits, evals, nil
}
