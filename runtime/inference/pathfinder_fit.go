package inference

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/runtime/rng"
)

// PathfinderSettings are multi-path Pathfinder's settings (Zhang,
// Carpenter, Gelman and Vehtari 2022, "Pathfinder: parallel quasi-Newton
// variational inference", JMLR 23). The zero value takes CmdStan's
// defaults, given on each field.
type PathfinderSettings struct {
	// Paths is the number of single paths; default 4 (num_paths).
	Paths int
	// Draws is the number of draws returned; default 1000
	// (num_psis_draws). With one path, the single path's draws.
	Draws int
	// SingleDraws is the number of draws from each path's best Gaussian;
	// default 1000 (num_draws).
	SingleDraws int
	// ElboDraws is the Monte Carlo draws of each ELBO estimate; default 25
	// (num_elbo_draws).
	ElboDraws int
	// History is the L-BFGS history size; default 5 (history_size).
	History int
	// MaxIter bounds the L-BFGS iterations per path; default 1000
	// (max_lbfgs_iters).
	MaxIter int
	Seed    uint64
	// Step, when set, is called after each path's L-BFGS iteration.
	Step func()
}

// WithDefaults is s with every unset field at its default.
func (s PathfinderSettings) WithDefaults() PathfinderSettings {
	s.defaults()
	return s
}

func (s *PathfinderSettings) defaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&s.Paths, 4)
	def(&s.Draws, 1000)
	def(&s.SingleDraws, 1000)
	def(&s.ElboDraws, 25)
	def(&s.History, 5)
	def(&s.MaxIter, 1000)
}

// PathfinderFit is multi-path Pathfinder: each path runs L-BFGS from a
// uniform draw in (−2, 2) on the unconstrained scale, fits at every iterate
// the Gaussian N(x + Σ∇log p, Σ) with Σ the L-BFGS inverse Hessian,
// estimates its ELBO E_q[log p − log q] with ElboDraws draws, keeps the
// best, and draws SingleDraws from it. With more than one path, the pooled
// draws are Pareto-smoothed importance resampled (with replacement, weights
// p/q) to Draws, as CmdStan's psis_resample; Khat is the Pareto k̂ of the
// pooled ratios. Paths run in parallel, each on one of models.
func PathfinderFit(ctx context.Context, models []Model, s PathfinderSettings) (*Approx, error) {
	s.defaults()
	dim := models[0].Dim()
	if dim == 0 {
		return nil, errors.New("the model has no free parameters")
	}
	type pathOut struct {
		draws      [][]float64
		logP, logQ []float64
		elbo       float64
		iters      int
		evals      int64
		err        error
	}
	outs := make([]pathOut, s.Paths)
	panics := ForEach(models, s.Paths, func(p int, m Model) {
		rnd := rng.New(s.Seed, rng.PathfinderFitPath.Index(p))
		ev := &evaluator{m: m, grad: make([]float64, dim)}
		o := &outs[p]
		o.draws, o.logP, o.logQ, o.elbo, o.iters, o.err = fitPath(ctx, ev, rnd, s)
		o.evals = ev.n
	})
	for p, err := range panics {
		if err != nil {
			outs[p] = pathOut{err: err}
		}
	}
	res := &Approx{}
	var pool [][]float64
	var logP, logQ []float64
	var lastErr error
	for _, o := range outs {
		res.Evals += o.evals
		res.PathELBO = append(res.PathELBO, o.elbo)
		res.PathIters = append(res.PathIters, o.iters)
		if o.err != nil {
			lastErr = o.err
			continue
		}
		pool = append(pool, o.draws...)
		logP = append(logP, o.logP...)
		logQ = append(logQ, o.logQ...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(pool) == 0 {
		if lastErr == nil {
			lastErr = errors.New("no path produced draws")
		}
		return nil, lastErr
	}
	res.Khat = khatOf(logP, logQ)
	if s.Paths == 1 {
		res.Draws, res.LogP, res.LogQ = pool, logP, logQ
		return res, nil
	}
	lr := make([]float64, len(pool))
	for i := range lr {
		lr[i] = logP[i] - logQ[i]
		if math.IsNaN(lr[i]) {
			lr[i] = math.Inf(-1)
		}
	}
	lw, _ := PSIS(lr)
	picks := resampleWithReplacement(lw, s.Draws, rng.New(s.Seed, rng.PathfinderFitResample))
	if picks == nil {
		return nil, errors.New("every Pathfinder draw had zero importance weight")
	}
	for _, i := range picks {
		res.Draws = append(res.Draws, pool[i])
		res.LogP = append(res.LogP, logP[i])
		res.LogQ = append(res.LogQ, logQ[i])
	}
	return res, nil
}

// fitPath is one single-path Pathfinder: the L-BFGS path, the ELBO of the
// Gaussian at every iterate, and draws from the best.
func fitPath(ctx context.Context, ev *evaluator, rnd *rand.Rand, s PathfinderSettings) (draws [][]float64, logP, logQ []float64, elbo float64, iters int, err error) {
	dim := ev.m.Dim()
	x0, _, err := UniformInit(ev.m, nil, rnd, 2)
	if err != nil {
		return nil, nil, nil, math.NaN(), 0, err
	}
	its := lbfgsPathStep(ctx, ev, x0, s.MaxIter, s.History, s.Step)
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, math.NaN(), 0, err
	}
	var best *gaussian
	for k := 1; k < len(its); k++ {
		if ctx.Err() != nil {
			return nil, nil, nil, math.NaN(), 0, ctx.Err()
		}
		g := approximation(its[k], dim)
		if g == nil {
			continue
		}
		g.elbo = 0
		for d := 0; d < s.ElboDraws; d++ {
			theta, lq := g.draw(rnd)
			g.elbo += (ev.eval(nil, theta) - lq) / float64(s.ElboDraws)
		}
		if math.IsNaN(g.elbo) || math.IsInf(g.elbo, -1) {
			continue
		}
		if best == nil || g.elbo > best.elbo {
			best = g
		}
	}
	if best == nil {
		return nil, nil, nil, math.NaN(), len(its) - 1, fmt.Errorf("no iterate of the L-BFGS path (%d iterations) gave a Gaussian with a finite ELBO", len(its)-1)
	}
	for d := 0; d < s.SingleDraws; d++ {
		if d%64 == 0 && ctx.Err() != nil {
			return nil, nil, nil, math.NaN(), 0, ctx.Err()
		}
		theta, lq := best.draw(rnd)
		draws = append(draws, theta)
		logP = append(logP, ev.eval(nil, theta))
		logQ = append(logQ, lq)
	}
	return draws, logP, logQ, best.elbo, len(its) - 1, nil
}

// resampleWithReplacement draws k indices with probability proportional to
// exp(logW); nil when every weight is zero.
func resampleWithReplacement(logW []float64, k int, rnd *rand.Rand) []int {
	top := math.Inf(-1)
	for _, l := range logW {
		top = math.Max(top, l)
	}
	if math.IsInf(top, -1) || math.IsNaN(top) {
		return nil
	}
	cum := make([]float64, len(logW))
	acc := 0.0
	for i, l := range logW {
		acc += math.Exp(l - top)
		cum[i] = acc
	}
	picks := make([]int, k)
	for j := range picks {
		u := rnd.Float64() * acc
		lo, hi := 0, len(cum)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cum[mid] > u {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		picks[j] = lo
	}
	return picks
}
