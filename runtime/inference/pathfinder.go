package inference

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// Pathfinder-style initialisation (after Zhang, Carpenter, Gelman and Vehtari
// 2022, "Pathfinder: parallel quasi-Newton variational inference"). Each
// path maximises log p by L-BFGS from a uniform draw in (−2, 2); at iterates
// along the path it fits the Gaussian N(x + Σ∇log p(x), Σ) with Σ the
// L-BFGS inverse Hessian (in its compact low-rank form, so a path costs
// O(D) per iterate, not O(D³)), estimates its ELBO by Monte Carlo, and keeps the best. Draws from
// the paths' best Gaussians are pooled and the chains' starting points are
// resampled without replacement with weights p(θ)/q(θ). A path stuck in a
// minor mode hundreds of nats below the main one carries a negligible
// weight, so no chain starts there; modes of equal mass each keep their
// share. The weights are plain importance weights: they only pick starting
// points, which warm-up then corrects, so Pareto smoothing would change little.
const (
	pfPaths       = 8  // paths, at least
	pfWideRadius  = 5  // the wide paths' starting range (−5, 5)
	pfMaxIter     = 60 // L-BFGS iterations per path
	pfHistory     = 6  // stored (s, y) pairs
	pfElboDraws   = 8  // Monte Carlo draws per ELBO estimate
	pfElboPoints  = 10 // iterates per path whose ELBO is estimated
	pfPoolDraws   = 40 // draws per path for resampling
	pfMaxLineHalf = 40 // step halvings in the line search
)

// gaussian is one Pathfinder approximation N(mu, Σ) with
// Σ = Q L Lᵀ Qᵀ + γ(I − QQᵀ) (see approximation).
type gaussian struct {
	mu        []float64
	q         [][]float64 // r orthonormal columns
	chol      []float64   // L, r×r lower triangular, row-major
	sqrtGamma float64
	logDet    float64 // ½ log det Σ
	elbo      float64
}

// iterate is one point of an L-BFGS path with the history up to it.
type iterate struct {
	x, g []float64
	lp   float64
	s, y [][]float64
}

// Pathfinder chooses chains starting points for a sampler by the method
// above: it runs the paths in parallel, each holding one of models (one model
// per path at a time), pools draws from their best Gaussians and resamples
// chains of them by importance weight. fixed holds coordinates that keep
// their value (NaN: free; nil: all free). It returns the points and the
// number of log density evaluations.
func Pathfinder(ctx context.Context, models []Model, chains int, seed uint64, fixed []float64) ([][]float64, int64, error) {
	paths := max(pfPaths, 1)
	dim := models[0].Dim()
	type pathOut struct {
		draws [][]float64
		logW  []float64
		evals int64
		err   error
	}
	outs := make([]pathOut, paths)
	// Even paths start as Stan's chains do, uniform in (−2, 2). Odd paths
	// start in (−5, 5), stratified: in each coordinate the wide paths take
	// one stratum each, in a random order, so between them they reach the
	// far parts of the range. A main mode near the edge of (−2, 2) (the
	// BKE lengthscale on a grid of clusters, 416 nats above a mode near
	// the middle) is otherwise missed by every path more often than not.
	starts := make([][]float64, paths)
	srng := rng.New(seed, rng.PathfinderStarts)
	wide := paths / 2
	for p := 1; p < paths; p += 2 {
		starts[p] = make([]float64, dim)
	}
	for i := 0; i < dim; i++ {
		perm := srng.Perm(wide)
		for k, p := 0, 1; p < paths; k, p = k+1, p+2 {
			u := (float64(perm[k]) + srng.Float64()) / float64(wide)
			starts[p][i] = pfWideRadius * (2*u - 1)
		}
	}
	// Each running path holds a model of its own: they are not safe for
	// concurrent use.
	panics := ForEach(models, paths, func(p int, m Model) {
		rnd := rng.New(seed, rng.PathfinderPath.Index(p))
		ev := &evaluator{m: m, grad: make([]float64, dim)}
		draws, logW, err := onePath(ctx, ev, rnd, fixed, starts[p])
		outs[p] = pathOut{draws, logW, ev.n, err}
	})
	for p, err := range panics {
		if err != nil {
			outs[p] = pathOut{err: err}
		}
	}
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
	rnd := rng.New(seed, rng.PathfinderResample)
	picks := resample(logW, chains, rnd)
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

// onePath runs one path from start (or, when that is nil or has no finite
// log density, from a uniform draw in (−2, 2)) and returns draws from its
// best approximation with their log importance weights.
func onePath(ctx context.Context, ev *evaluator, rng *rand.Rand, fixed []float64, start []float64) ([][]float64, []float64, error) {
	dim := ev.m.Dim()
	var x0 []float64
	if start != nil {
		x0 = append([]float64(nil), start...)
		for j, v := range fixed {
			if !math.IsNaN(v) {
				x0[j] = v
			}
		}
		if math.IsInf(ev.eval(nil, x0), -1) {
			x0 = nil
		}
	}
	if x0 == nil {
		var err error
		if x0, _, err = UniformInit(ev.m, fixed, rng, 2); err != nil {
			return nil, nil, err
		}
	}
	its := lbfgsPath(ctx, ev, x0, pfMaxIter, pfHistory)
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

// lbfgsPath maximises log p from x0 with L-BFGS (at most maxIter
// iterations, history pairs kept) and a backtracking line search, returning
// the iterates with their histories.
func lbfgsPath(ctx context.Context, ev *evaluator, x0 []float64, maxIter, history int) []iterate {
	return lbfgsPathStep(ctx, ev, x0, maxIter, history, nil)
}

// lbfgsPathStep is lbfgsPath calling step, when not nil, after each
// iteration.
func lbfgsPathStep(ctx context.Context, ev *evaluator, x0 []float64, maxIter, history int, step func()) []iterate {
	dim := len(x0)
	x := append([]float64(nil), x0...)
	g := make([]float64, dim)
	lp := ev.eval(g, x)
	its := []iterate{{x: append([]float64(nil), x...), g: append([]float64(nil), g...), lp: lp}}
	var S, Y [][]float64
	dir := make([]float64, dim)
	xn := make([]float64, dim)
	gn := make([]float64, dim)
	for it := 0; it < maxIter && ctx.Err() == nil; it++ {
		twoLoop(dir, g, S, Y)
		slope := linalg.Dot(g, dir)
		if !(slope > 0) { // not an ascent direction: restart from the gradient
			copy(dir, g)
			S, Y = nil, nil
			slope = linalg.Dot(g, g)
		}
		a := 1.0
		if len(S) == 0 { // first step: at most unit length
			a = math.Min(1, 1/math.Sqrt(linalg.Dot(dir, dir)))
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
		if sy := linalg.Dot(s, y); sy > 1e-10*linalg.Dot(y, y) {
			S, Y = append(S, s), append(Y, y)
			if len(S) > history {
				S, Y = S[1:], Y[1:]
			}
		}
		improvement := lpn - lp
		copy(x, xn)
		copy(g, gn)
		lp = lpn
		its = append(its, iterate{x: append([]float64(nil), x...), g: append([]float64(nil), g...), lp: lp,
			s: append([][]float64(nil), S...), y: append([][]float64(nil), Y...)})
		if step != nil {
			step()
		}
		if improvement < 1e-8*(1+math.Abs(lp)) || math.Sqrt(linalg.Dot(g, g)) < 1e-8 {
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
		rho := 1 / linalg.Dot(Y[i], S[i])
		alpha[i] = rho * linalg.Dot(S[i], dir)
		for j := range dir {
			dir[j] -= alpha[i] * Y[i][j]
		}
	}
	if k > 0 {
		gamma := linalg.Dot(S[k-1], Y[k-1]) / linalg.Dot(Y[k-1], Y[k-1])
		for j := range dir {
			dir[j] *= gamma
		}
	}
	for i := 0; i < k; i++ {
		rho := 1 / linalg.Dot(Y[i], S[i])
		beta := rho * linalg.Dot(Y[i], dir)
		for j := range dir {
			dir[j] += S[i][j] * (alpha[i] - beta)
		}
	}
}

// approximation builds the Gaussian of an iterate: Σ is the BFGS inverse
// Hessian from the iterate's J pairs, started at γI, and the mean is the
// quasi-Newton step x + Σg. Σ is never formed: in the compact form of Byrd,
// Nocedal and Schnabel (1994), Σ = γI + W M Wᵀ with W = [S γY] (D×2J) and
//
//	M = [ R⁻ᵀ(E + γYᵀY)R⁻¹   −R⁻ᵀ ]
//	    [ −R⁻¹                  0  ],
//
// R the upper triangle of SᵀY and E its diagonal. With Q an orthonormal
// basis of W's columns (r of them) and P = QᵀW, Σ = Q B Qᵀ + γ(I − QQᵀ)
// where B = γI + P M Pᵀ is r×r, so draws and log det Σ cost O(DJ + J³)
// rather than the O(D³) of a dense factorisation.
func approximation(it iterate, dim int) *gaussian {
	if len(it.s) == 0 || math.IsInf(it.lp, -1) {
		return nil
	}
	j := len(it.s)
	S, Y := it.s, it.y
	gamma := linalg.Dot(S[j-1], Y[j-1]) / linalg.Dot(Y[j-1], Y[j-1])
	if !(gamma > 0) || math.IsInf(gamma, 1) {
		return nil
	}
	// R⁻¹ by back substitution (R's diagonal sᵢᵀyᵢ is positive: the path
	// keeps only pairs with positive curvature).
	rinv := make([]float64, j*j)
	for c := 0; c < j; c++ {
		for r := c; r >= 0; r-- {
			v := 0.0
			if r == c {
				v = 1
			}
			for k := r + 1; k <= c; k++ {
				v -= linalg.Dot(S[r], Y[k]) * rinv[k*j+c]
			}
			rinv[r*j+c] = v / linalg.Dot(S[r], Y[r])
		}
	}
	// M, 2J×2J.
	n := 2 * j
	mid := make([]float64, j*j) // E + γYᵀY
	for a := 0; a < j; a++ {
		for b := 0; b < j; b++ {
			mid[a*j+b] = gamma * linalg.Dot(Y[a], Y[b])
		}
		mid[a*j+a] += linalg.Dot(S[a], Y[a])
	}
	rinvT := make([]float64, j*j)
	for a := 0; a < j; a++ {
		for b := 0; b < j; b++ {
			rinvT[a*j+b] = rinv[b*j+a]
		}
	}
	m11 := sandwich(rinvT, j, j, mid) // R⁻ᵀ(E + γYᵀY)R⁻¹
	m := make([]float64, n*n)
	for a := 0; a < j; a++ {
		for b := 0; b < j; b++ {
			m[a*n+b] = m11[a*j+b]
			m[a*n+j+b] = -rinvT[a*j+b]  // −R⁻ᵀ
			m[(j+a)*n+b] = -rinv[a*j+b] // −R⁻¹
		}
	}
	w := make([][]float64, n) // W's columns
	for a := 0; a < j; a++ {
		w[a] = S[a]
		w[j+a] = make([]float64, dim)
		for i, v := range Y[a] {
			w[j+a][i] = gamma * v
		}
	}
	q := orthonormalBasis(w)
	r := len(q)
	// P = QᵀW (r×2J), then B = γI + P M Pᵀ.
	pm := make([]float64, r*n)
	for a := 0; a < r; a++ {
		for b := 0; b < n; b++ {
			pm[a*n+b] = linalg.Dot(q[a], w[b])
		}
	}
	bm := sandwich(pm, r, n, m)
	for a := 0; a < r; a++ {
		bm[a*r+a] += gamma
	}
	l := make([]float64, r*r)
	if !linalg.Cholesky(l, bm, r) {
		return nil
	}
	// μ = x + Σg = x + γg + W M Wᵀg.
	wg := make([]float64, n)
	for k := range wg {
		wg[k] = linalg.Dot(w[k], it.g)
	}
	mu := make([]float64, dim)
	for i := range mu {
		mu[i] = it.x[i] + gamma*it.g[i]
	}
	for k := 0; k < n; k++ {
		c := linalg.Dot(m[k*n:(k+1)*n], wg)
		for i, v := range w[k] {
			mu[i] += c * v
		}
	}
	logDet := 0.5 * float64(dim-r) * math.Log(gamma)
	for a := 0; a < r; a++ {
		logDet += math.Log(l[a*r+a])
	}
	return &gaussian{mu: mu, q: q, chol: l, sqrtGamma: math.Sqrt(gamma), logDet: logDet}
}

// sandwich returns X M Xᵀ for X rows×inner and M inner×inner, row-major.
func sandwich(x []float64, rows, inner int, m []float64) []float64 {
	out := make([]float64, rows*rows)
	for a := 0; a < rows; a++ {
		for b := 0; b < rows; b++ {
			v := 0.0
			for k := 0; k < inner; k++ {
				v += x[a*inner+k] * linalg.Dot(m[k*inner:(k+1)*inner], x[b*inner:(b+1)*inner])
			}
			out[a*rows+b] = v
		}
	}
	return out
}

// orthonormalBasis returns an orthonormal basis of the span of cols by
// Gram–Schmidt, orthogonalising twice; a column (nearly) inside the span
// of the earlier ones adds nothing.
func orthonormalBasis(cols [][]float64) [][]float64 {
	var q [][]float64
	for _, c := range cols {
		v := append([]float64(nil), c...)
		norm0 := math.Sqrt(linalg.Dot(v, v))
		for pass := 0; pass < 2; pass++ {
			for _, u := range q {
				p := linalg.Dot(u, v)
				for i := range v {
					v[i] -= p * u[i]
				}
			}
		}
		norm := math.Sqrt(linalg.Dot(v, v))
		if !(norm > 1e-10*norm0) {
			continue
		}
		for i := range v {
			v[i] /= norm
		}
		q = append(q, v)
	}
	return q
}

// draw returns θ = μ + QLQᵀz + √γ(z − QQᵀz), a draw from N(μ, Σ), and
// log q(θ) = −½‖z‖² − ½ log det Σ − (D/2) log 2π.
func (g *gaussian) draw(rng *rand.Rand) ([]float64, float64) {
	dim, r := len(g.mu), len(g.q)
	z := make([]float64, dim)
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	qz := make([]float64, r)
	for a, u := range g.q {
		qz[a] = linalg.Dot(u, z)
	}
	theta := make([]float64, dim)
	for i := range theta {
		theta[i] = g.mu[i] + g.sqrtGamma*z[i]
	}
	for a, u := range g.q {
		c := -g.sqrtGamma * qz[a]
		for b := 0; b <= a; b++ {
			c += g.chol[a*r+b] * qz[b]
		}
		for i, v := range u {
			theta[i] += c * v
		}
	}
	logQ := -0.5*linalg.Dot(z, z) - g.logDet - 0.5*float64(dim)*math.Log(2*math.Pi)
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
