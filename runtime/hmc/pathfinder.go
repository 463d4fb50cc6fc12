package hmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Pathfinder-style initialisation (after Zhang, Carpenter, Gelman and Vehtari
// 2022, "Pathfinder: parallel quasi-Newton variational inference"). Each
// path maximises log p by L-BFGS from a uniform draw in (−2, 2); at iterates
// along the path it fits the Gaussian N(x + Σ∇log p(x), Σ) with Σ the
// L-BFGS inverse Hessian (built densely by BFGS updates from the stored
// pairs), estimates its ELBO by Monte Carlo, and keeps the best. Draws from
// the paths' best Gaussians are pooled and the chains' starting points are
// resampled without replacement with weights p(θ)/q(θ). A path stuck in a
// minor mode hundreds of nats below the main one carries a negligible
// weight, so no chain starts there; modes of equal mass each keep their
// share. The weights are plain importance weights: they only pick starting
// points, which warm-up then corrects, so Pareto smoothing would change little.
const (
	pfPaths       = 4  // paths, at least
	pfMaxIter     = 60 // L-BFGS iterations per path
	pfHistory     = 6  // stored (s, y) pairs
	pfElboDraws   = 8  // Monte Carlo draws per ELBO estimate
	pfElboPoints  = 10 // iterates per path whose ELBO is estimated
	pfPoolDraws   = 40 // draws per path for resampling
	pfMaxLineHalf = 40 // step halvings in the line search
)

// gaussian is one Pathfinder approximation N(mu, LLᵀ).
type gaussian struct {
	mu     []float64
	chol   []float64 // lower triangular, row-major
	logDet float64   // log |L|
	elbo   float64
}

// iterate is one point of an L-BFGS path with the history up to it.
type iterate struct {
	x, g []float64
	lp   float64
	s, y [][]float64
}

func pathfinderInits(ctx context.Context, models []Model, chains int, seed uint64, fixed []float64) ([][]float64, int64, error) {
	paths := max(pfPaths, 1)
	dim := models[0].Dim()
	type pathOut struct {
		draws [][]float64
		logW  []float64
		evals int64
		err   error
	}
	outs := make([]pathOut, paths)
	var wg sync.WaitGroup
	// Each running path holds a model of its own: they are not safe for
	// concurrent use.
	free := make(chan Model, len(models))
	for _, m := range models {
		free <- m
	}
	for p := 0; p < paths; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			m := <-free
			defer func() { free <- m }()
			defer func() {
				if r := recover(); r != nil {
					outs[p] = pathOut{err: fmt.Errorf("internal error: %v", r)}
				}
			}()
			rng := rand.New(rand.NewPCG(seed, 0x70617468+uint64(p)))
			ev := &evaluator{m: m, grad: make([]float64, dim)}
			draws, logW, err := onePath(ctx, ev, rng, fixed)
			outs[p] = pathOut{draws, logW, ev.n, err}
		}(p)
	}
	wg.Wait()
	var evals int64
	var pool [][]float64
	var logW []float64
	var lastErr error
	for _, o := range outs {
		evals += o.evals
		if o.err != nil {
			lastErr = o.err
			continue
		}
		pool = append(pool, o.draws...)
		logW = append(logW, o.logW...)
	}
	if ctx.Err() != nil {
		return nil, evals, ctx.Err()
	}
	if len(pool) < chains {
		if lastErr == nil {
			lastErr = errors.New("too few usable draws")
		}
		return nil, evals, lastErr
	}
	rng := rand.New(rand.NewPCG(seed, 0x72657361))
	picks := resample(logW, chains, rng)
	if picks == nil {
		return nil, evals, errors.New("every draw had zero importance weight")
	}
	inits := make([][]float64, chains)
	for c, i := range picks {
		inits[c] = append([]float64(nil), pool[i]...)
		for j, v := range fixed {
			if !math.IsNaN(v) {
				inits[c][j] = v
			}
		}
	}
	return inits, evals, nil
}

// evaluator counts log density evaluations and maps failures to −Inf.
type evaluator struct {
	m    Model
	grad []float64
	n    int64
}

func (e *evaluator) eval(grad, q []float64) float64 {
	e.n++
	if grad == nil {
		grad = e.grad
	}
	lp, err := e.m.LogDensity(grad, q)
	if err != nil || !finite(lp) || !allFinite(grad) {
		return math.Inf(-1)
	}
	return lp
}

// onePath runs one path and returns draws from its best approximation with
// their log importance weights.
func onePath(ctx context.Context, ev *evaluator, rng *rand.Rand, fixed []float64) ([][]float64, []float64, error) {
	dim := ev.m.Dim()
	x0, _, err := uniformInit(ev.m, fixed, rng)
	if err != nil {
		return nil, nil, err
	}
	its := lbfgsPath(ctx, ev, x0)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	// Estimate the ELBO at up to pfElboPoints iterates, always the last.
	var best *gaussian
	n := len(its)
	step := max(1, (n+pfElboPoints-1)/pfElboPoints)
	for k := n - 1; k >= 1; k -= step {
		g := approximation(its[k], dim)
		if g == nil {
			continue
		}
		g.elbo = 0
		for d := 0; d < pfElboDraws; d++ {
			theta, logQ := g.draw(rng)
			g.elbo += (ev.eval(nil, theta) - logQ) / pfElboDraws
		}
		if math.IsNaN(g.elbo) {
			continue
		}
		if best == nil || g.elbo > best.elbo {
			best = g
		}
	}
	if best == nil {
		return nil, nil, errors.New("no path produced a usable Gaussian approximation")
	}
	draws := make([][]float64, 0, pfPoolDraws)
	logW := make([]float64, 0, pfPoolDraws)
	for d := 0; d < pfPoolDraws; d++ {
		theta, logQ := best.draw(rng)
		lp := ev.eval(nil, theta)
		if math.IsInf(lp, -1) {
			continue
		}
		draws = append(draws, theta)
		logW = append(logW, lp-logQ)
	}
	return draws, logW, nil
}

// lbfgsPath maximises log p from x0 with L-BFGS and a backtracking line
// search, returning the iterates with their histories.
func lbfgsPath(ctx context.Context, ev *evaluator, x0 []float64) []iterate {
	dim := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, dim)
	lp := ev.eval(g, x)
	its := []iterate{{x: append([]float64(nil), x...), g: append([]float64(nil), g...), lp: lp}}
	var S, Y [][]float64
	dir := make([]float64, dim)
	xn := make([]float64, dim)
	gn := make([]float64, dim)
	for it := 0; it < pfMaxIter && ctx.Err() == nil; it++ {
		twoLoop(dir, g, S, Y)
		slope := dot(g, dir)
		if !(slope > 0) { // not an ascent direction: restart from the gradient
			copy(dir, g)
			S, Y = nil, nil
			slope = dot(g, g)
		}
		a := 1.0
		if len(S) == 0 { // first step: at most unit length
			a = math.Min(1, 1/math.Sqrt(dot(dir, dir)))
		}
		var lpn float64
		ok := false
		for h := 0; h < pfMaxLineHalf; h++ {
			for i := range xn {
				xn[i] = x[i] + a*dir[i]
			}
			lpn = ev.eval(gn, xn)
			if lpn >= lp+1e-4*a*slope {
				ok = true
				break
			}
			a /= 2
		}
		if !ok {
			break
		}
		s := make([]float64, dim)
		y := make([]float64, dim)
		for i := range s {
			s[i] = xn[i] - x[i]
			y[i] = g[i] - gn[i] // the change in the gradient of −log p
		}
		if sy := dot(s, y); sy > 1e-10*dot(y, y) {
			S, Y = append(S, s), append(Y, y)
			if len(S) > pfHistory {
				S, Y = S[1:], Y[1:]
			}
		}
		improvement := lpn - lp
		copy(x, xn)
		copy(g, gn)
		lp = lpn
		its = append(its, iterate{x: append([]float64(nil), x...), g: append([]float64(nil), g...), lp: lp,
			s: append([][]float64(nil), S...), y: append([][]float64(nil), Y...)})
		if improvement < 1e-8*(1+math.Abs(lp)) || math.Sqrt(dot(g, g)) < 1e-8 {
			break
		}
	}
	return its
}

// twoLoop writes dir = H·g, the L-BFGS inverse Hessian applied to the
// gradient of log p (an ascent direction).
func twoLoop(dir, g []float64, S, Y [][]float64) {
	copy(dir, g)
	k := len(S)
	alpha := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		rho := 1 / dot(Y[i], S[i])
		alpha[i] = rho * dot(S[i], dir)
		for j := range dir {
			dir[j] -= alpha[i] * Y[i][j]
		}
	}
	if k > 0 {
		gamma := dot(S[k-1], Y[k-1]) / dot(Y[k-1], Y[k-1])
		for j := range dir {
			dir[j] *= gamma
		}
	}
	for i := 0; i < k; i++ {
		rho := 1 / dot(Y[i], S[i])
		beta := rho * dot(Y[i], dir)
		for j := range dir {
			dir[j] += S[i][j] * (alpha[i] - beta)
		}
	}
}

// approximation builds the Gaussian of an iterate: Σ is the BFGS inverse
// Hessian from the iterate's pairs, started at γI, and the mean is the
// quasi-Newton step x + Σg.
func approximation(it iterate, dim int) *gaussian {
	if len(it.s) == 0 || math.IsInf(it.lp, -1) {
		return nil
	}
	k := len(it.s)
	gamma := dot(it.s[k-1], it.y[k-1]) / dot(it.y[k-1], it.y[k-1])
	sigma := make([]float64, dim*dim)
	for i := 0; i < dim; i++ {
		sigma[i*dim+i] = gamma
	}
	hy := make([]float64, dim)
	for p := range it.s {
		s, y := it.s[p], it.y[p]
		rho := 1 / dot(y, s)
		// Σ ← (I − ρsyᵀ)Σ(I − ρysᵀ) + ρssᵀ
		//   = Σ − ρ(s(Σy)ᵀ + (Σy)sᵀ) + (ρ²yᵀΣy + ρ)ssᵀ.
		for i := 0; i < dim; i++ {
			hy[i] = dot(sigma[i*dim:(i+1)*dim], y)
		}
		yhy := dot(y, hy)
		c := rho*rho*yhy + rho
		for i := 0; i < dim; i++ {
			for j := 0; j < dim; j++ {
				sigma[i*dim+j] += -rho*(s[i]*hy[j]+hy[i]*s[j]) + c*s[i]*s[j]
			}
		}
	}
	l, ok := cholesky(sigma, dim)
	if !ok {
		return nil
	}
	mu := make([]float64, dim)
	for i := 0; i < dim; i++ {
		mu[i] = it.x[i] + dot(sigma[i*dim:(i+1)*dim], it.g)
	}
	logDet := 0.0
	for i := 0; i < dim; i++ {
		logDet += math.Log(l[i*dim+i])
	}
	return &gaussian{mu: mu, chol: l, logDet: logDet}
}

// draw returns θ = μ + Lz and log q(θ).
func (g *gaussian) draw(rng *rand.Rand) ([]float64, float64) {
	dim := len(g.mu)
	z := make([]float64, dim)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	theta := make([]float64, dim)
	for i := 0; i < dim; i++ {
		s := g.mu[i]
		for j := 0; j <= i; j++ {
			s += g.chol[i*dim+j] * z[j]
		}
		theta[i] = s
	}
	logQ := -0.5*dot(z, z) - g.logDet - 0.5*float64(dim)*math.Log(2*math.Pi)
	return theta, logQ
}

// resample picks k distinct indices with probability proportional to
// exp(logW), one after another without replacement; nil when every weight
// is zero.
func resample(logW []float64, k int, rng *rand.Rand) []int {
	top := math.Inf(-1)
	for _, l := range logW {
		top = math.Max(top, l)
	}
	if math.IsInf(top, -1) || math.IsNaN(top) {
		return nil
	}
	w := make([]float64, len(logW))
	for i, l := range logW {
		w[i] = math.Exp(l - top)
	}
	picks := make([]int, 0, k)
	distinct := 0
	for len(picks) < k {
		total := 0.0
		for _, v := range w {
			total += v
		}
		if total == 0 { // fewer positive weights than chains: cycle the picks
			if distinct == 0 {
				distinct = len(picks)
			}
			picks = append(picks, picks[len(picks)%distinct])
			continue
		}
		u := rng.Float64() * total
		i, acc := 0, 0.0
		for ; i < len(w)-1; i++ {
			acc += w[i]
			if u < acc {
				break
			}
		}
		for w[i] == 0 { // rounding ran past the last positive weight
			i--
		}
		picks = append(picks, i)
		w[i] = 0
	}
	return picks
}
