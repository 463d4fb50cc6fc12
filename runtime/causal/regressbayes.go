package causal

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/rng"
)

// RegressionBayes configures RegressBayes. The zero value works.
type RegressionBayes struct {
	// Draws is S, the number of importance draws of the hyperparameters;
	// default 64.
	Draws int
	// PriorSD is the standard deviation of the normal prior on each of
	// log s, log ℓ_j and log(σ² − 10⁻⁴) (standardised data); default 2.
	PriorSD float64
}

// DefaultRegressionDraws is RegressionBayes's default S.
const DefaultRegressionDraws = 64

// defaultPriorSD is RegressionBayes's default prior sd (a factor e² ≈ 7.4
// either way of the centre at one sd).
const defaultPriorSD = 2

// tDF is the degrees of freedom of the importance proposal.
const tDF = 4

func (b RegressionBayes) withDefaults() RegressionBayes {
	if b.Draws <= 0 {
		b.Draws = DefaultRegressionDraws
	}
	if b.PriorSD <= 0 {
		b.PriorSD = defaultPriorSD
	}
	return b
}

// RegressionPosterior is what RegressBayes reports about its draws.
type RegressionPosterior struct {
	// Draws is S; ESS is Kish's effective sample size of the normalised
	// weights, (Σw)²/Σw², and MaxWeight the largest normalised weight.
	Draws     int
	ESS       float64
	MaxWeight float64
	// PriorSD is the prior's sd on the log scale.
	PriorSD float64
	// Modes is the number of distinct local maxima of the posterior
	// found (posteriorModes), each a component of the proposal.
	Modes int
	// EllMean is the posterior mean of each lengthscale, ScaleMean of s
	// and NoiseMean of σ² (standardised scale), by the weighted draws.
	EllMean              []float64
	ScaleMean, NoiseMean float64
}

// RegressBayes is Regress with the hyperparameters integrated out: the
// residuals are y − E[f(z) | y], the posterior mean of f averaged over the
// posterior of θ = (log s, log ℓ₁…ℓ_d, log(σ² − 10⁻⁴)) on standardised
// data, under independent normal priors with sd b.PriorSD centred at
// Regress's starting point (s = 1, ℓ = 1, σ² = 0.1 + 10⁻⁴). A proper prior
// is needed: with a flat prior on log ℓ the marginal likelihood tends to a
// positive constant as ℓ → ∞ and the posterior is improper.
//
// Why average the predictive mean. E[X | Z] under the model with θ unknown
// is ∫ E[f(z) | y, θ] p(θ | y) dθ, so the residual of the Bayesian
// regression is the point residual averaged over θ's posterior; the HSIC
// test is then run once on these residuals and keeps its null calibration
// (permutations of the pairing, or the gamma approximation). Averaging
// the p-values of per-draw tests instead would not give a p-value: a
// mean of valid p-values is not uniform under H0 (only twice it is
// guaranteed valid, Vovk and Wang 2020), and the result would test no
// single statistic.
//
// Why importance sampling at Laplace approximations. The posterior has
// d + 2 dimensions and every evaluation costs one n×n Cholesky factor;
// NUTS would need thousands of them per regression (two per variable per
// conditioning set in pc). Here the posterior is climbed by L-BFGS (as
// ML-II, with the prior added) from ML-II's start and from lengthscales
// 0.1, 0.3 and 3 (modeStarts): a GP regression's marginal likelihood
// often has a second maximum where all of y is noise (s → 0, σ² → 1), and
// ML-II's single start stops there in about half of the replications of
// a fast-varying E[x | z] at n = 100 (studies/cibayes's sin 6z); a
// single-mode proposal at that mode then has an effective sample size
// near 1. Each distinct mode m_k gets the covariance Σ_k, the inverse of
// the negative Hessian there (central differences of the exact gradient;
// eigenvalues of the precision below the prior's 1/PriorSD² raised to
// it), and the proposal is the equal mixture of multivariate Student t's
// with 4 degrees of freedom at (m_k, Σ_k) (heavier tails than the
// posterior, so the weights stay bounded). S draws, stratified over the
// components, are weighted by posterior/mixture density (the balance
// heuristic of multiple importance sampling) and self-normalised. Each
// draw costs one factor, and the same factor gives its residual σ²C⁻¹y
// and its log marginal likelihood. The weights' ESS is reported: a small
// ESS says the proposal fits the posterior poorly. The draws are seeded
// by (seed, stream).
func RegressBayes(ctx context.Context, z *mat.Dense, y []float64, b RegressionBayes, seed uint64, stream rng.Stream) (Regression, error) {
	b = b.withDefaults()
	p, err := prepareRegression(z, y)
	if err != nil {
		return Regression{}, err
	}
	n, d := p.zs.Dims()
	dim := d + 2
	mean := make([]float64, dim)
	mean[dim-1] = math.Log(0.1)
	obj := func() *mlObjective {
		return &mlObjective{k: p.base, x: p.zs, y: p.ys, priorMean: mean, priorSD: b.PriorSD}
	}
	modes, err := posteriorModes(ctx, obj, p.init)
	if err != nil {
		return Regression{}, err
	}
	// The draws: stratified over the modes (draw s from mode s mod K),
	// q = m_k + L_k u, u multivariate t₄; logq is the mixture's density.
	r := rng.New(seed, stream)
	qs := make([][]float64, b.Draws)
	for s := range qs {
		md := modes[s%len(modes)]
		u := make([]float64, dim)
		var g float64
		for i := 0; i < tDF; i++ {
			e := r.NormFloat64()
			g += e * e
		}
		f := math.Sqrt(tDF / g)
		for i := range u {
			u[i] = r.NormFloat64() * f
		}
		q := make([]float64, dim)
		for i := range q {
			q[i] = md.q[i]
			for j := 0; j < dim; j++ {
				q[i] += md.l.At(i, j) * u[j]
			}
		}
		qs[s] = q
	}
	logq := make([]float64, b.Draws)
	for s, q := range qs {
		logq[s] = mixtureLogDensity(modes, q)
	}
	avg, err := posteriorMeanResiduals(ctx, obj(), qs, logq)
	if err != nil {
		return Regression{}, err
	}
	best := modes[0]
	k, noise, err := obj().params(best.q)
	if err != nil {
		return Regression{}, err
	}
	logml, err := gp.LogMarginal(k, p.zs, p.ys, noise, nil)
	if err != nil {
		return Regression{}, err
	}
	post := &RegressionPosterior{Draws: b.Draws, PriorSD: b.PriorSD, EllMean: make([]float64, d), Modes: len(modes)}
	var sw, sw2 float64
	for s, w := range avg.w {
		sw += w
		sw2 += w * w
		post.MaxWeight = max(post.MaxWeight, w)
		q := qs[s]
		post.ScaleMean += w * math.Exp(q[0])
		for j := 0; j < d; j++ {
			post.EllMean[j] += w * math.Exp(q[1+j])
		}
		post.NoiseMean += w * (noiseFloor + math.Exp(q[dim-1]))
	}
	post.ESS = sw * sw / sw2
	resid := make([]float64, n)
	for i, v := range avg.resid {
		resid[i] = p.sd * v
	}
	return Regression{Kernel: k, Noise: noise, LogML: logml, Converged: best.converged, Resid: resid, Posterior: post}, nil
}

// mode is a local maximum q of the log posterior, its value, the factor
// L (LLᵀ = Σ) of its Laplace covariance and log|det L|.
type mode struct {
	q         []float64
	value     float64
	l         *mat.Dense
	logDetL   float64
	converged bool
}

// modeStarts are the lengthscales (standardised z) from which
// posteriorModes climbs: ML-II's start ℓ = 1 and the scales around it.
var modeStarts = []float64{1, 0.1, 0.3, 3}

// posteriorModes climbs the log posterior by L-BFGS from init with every
// lengthscale set to each of modeStarts, and returns the distinct maxima
// (further than 0.5 apart in θ), highest first, with their Laplace
// factors (laplaceFactor).
func posteriorModes(ctx context.Context, obj func() *mlObjective, init []float64) ([]mode, error) {
	var out []mode
	dim := len(init)
	for _, ell := range modeStarts {
		start := append([]float64(nil), init...)
		for j := 1; j < dim-1; j++ {
			start[j] = math.Log(ell)
		}
		res, err := inference.Maximize(ctx, func() (inference.Model, error) { return obj(), nil },
			inference.Settings{Init: start, Workers: 1, MaxIterations: 200, GradTol: 1e-5})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		if math.IsNaN(res.Value) || math.IsInf(res.Value, 0) {
			continue
		}
		dup := false
		for k := range out {
			var d2 float64
			for i, v := range res.X {
				d2 += (v - out[k].q[i]) * (v - out[k].q[i])
			}
			if d2 < 0.25 {
				dup = true
				if res.Value > out[k].value {
					out[k].q, out[k].value, out[k].converged = res.X, res.Value, res.Converged
				}
				break
			}
		}
		if !dup {
			out = append(out, mode{q: res.X, value: res.Value, converged: res.Converged})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the posterior mode: no start reached a finite maximum")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].value > out[j].value })
	for k := range out {
		l, err := laplaceFactor(obj(), out[k].q, obj().priorSD)
		if err != nil {
			return nil, err
		}
		out[k].l = l
		var lu mat.LU
		lu.Factorize(l)
		out[k].logDetL, _ = lu.LogDet()
	}
	return out, nil
}

// mixtureLogDensity is the log density at q of the equal-weight mixture
// of multivariate t₄ distributions at the modes, location m_k and scale
// matrix Σ_k = L_k L_kᵀ:
//
//	t(q) = Γ((ν+p)/2) / (Γ(ν/2) (νπ)^{p/2} |Σ|^{1/2}) · (1 + δᵀΣ⁻¹δ/ν)^{−(ν+p)/2}.
func mixtureLogDensity(modes []mode, q []float64) float64 {
	p := float64(len(q))
	lg1, _ := math.Lgamma((tDF + p) / 2)
	lg2, _ := math.Lgamma(tDF / 2.0)
	c := lg1 - lg2 - p/2*math.Log(tDF*math.Pi) - math.Log(float64(len(modes)))
	terms := make([]float64, len(modes))
	top := math.Inf(-1)
	for k, md := range modes {
		delta := make([]float64, len(q))
		for i := range q {
			delta[i] = q[i] - md.q[i]
		}
		var u mat.VecDense
		if err := u.SolveVec(md.l, mat.NewVecDense(len(q), delta)); err != nil {
			terms[k] = math.Inf(-1)
			continue
		}
		uu := mat.Dot(&u, &u)
		terms[k] = c - md.logDetL - (tDF+p)/2*math.Log1p(uu/tDF)
		top = max(top, terms[k])
	}
	var sum float64
	for _, v := range terms {
		sum += math.Exp(v - top)
	}
	return top + math.Log(sum)
}

// laplaceFactor returns L with LLᵀ = Σ, the inverse of the negative
// Hessian of o's log density at q (central differences of the gradient,
// step 10⁻⁴, symmetrised), its eigenvalues raised to at least the prior's
// precision 1/priorSD².
func laplaceFactor(o *mlObjective, q []float64, priorSD float64) (*mat.Dense, error) {
	dim := len(q)
	h := mat.NewSymDense(dim, nil)
	gp, gm := make([]float64, dim), make([]float64, dim)
	x := append([]float64(nil), q...)
	const step = 1e-4
	cols := make([][]float64, dim)
	for j := 0; j < dim; j++ {
		x[j] = q[j] + step
		if _, err := o.LogDensity(gp, x); err != nil {
			return nil, fmt.Errorf("the Hessian at the mode: %w", err)
		}
		x[j] = q[j] - step
		if _, err := o.LogDensity(gm, x); err != nil {
			return nil, fmt.Errorf("the Hessian at the mode: %w", err)
		}
		x[j] = q[j]
		cols[j] = make([]float64, dim)
		for i := range cols[j] {
			cols[j][i] = -(gp[i] - gm[i]) / (2 * step)
		}
	}
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			h.SetSym(i, j, (cols[i][j]+cols[j][i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		return nil, fmt.Errorf("the Hessian at the mode has no eigendecomposition")
	}
	var v mat.Dense
	eig.VectorsTo(&v)
	floor := 1 / (priorSD * priorSD)
	for j, lam := range eig.Values(nil) {
		if !(lam >= floor) { // NaN too
			lam = floor
		}
		c := 1 / math.Sqrt(lam)
		for i := 0; i < dim; i++ {
			v.Set(i, j, v.At(i, j)*c)
		}
	}
	return &v, nil
}

// weighted is the self-normalised average of the draws' residuals (on the
// standardised scale) and the normalised weights.
type weighted struct {
	resid, w []float64
}

// posteriorMeanResiduals returns Σ_s w_s σ_s² C_s⁻¹ y over the draws qs of
// θ, w_s ∝ exp(log p(θ_s | y) − logq[s]) normalised to sum 1 (log p the
// unnormalised log posterior, o.LogDensity). A draw whose C is not
// positive definite gets weight 0. ctx is checked at each draw.
func posteriorMeanResiduals(ctx context.Context, o *mlObjective, qs [][]float64, logq []float64) (weighted, error) {
	n := len(o.y)
	res := make([][]float64, len(qs))
	logw := make([]float64, len(qs))
	top := math.Inf(-1)
	yv := mat.NewVecDense(n, o.y)
	for s, q := range qs {
		if err := ctx.Err(); err != nil {
			return weighted{}, err
		}
		logw[s] = math.Inf(-1)
		k, noise, err := o.params(q)
		if err != nil {
			continue
		}
		ch, _, _, err := gp.Factor(k, o.x, []float64{noise})
		if err != nil {
			continue
		}
		var alpha mat.VecDense
		if err := ch.SolveVecTo(&alpha, yv); err != nil {
			continue
		}
		lml := -0.5*mat.Dot(yv, &alpha) - 0.5*ch.LogDet() - float64(n)/2*math.Log(2*math.Pi)
		r := make([]float64, n)
		for i := range r {
			r[i] = noise * alpha.AtVec(i)
		}
		res[s] = r
		logw[s] = lml + o.logPrior(q, nil) - logq[s]
		if math.IsNaN(logw[s]) {
			logw[s] = math.Inf(-1)
		}
		top = max(top, logw[s])
	}
	if math.IsInf(top, -1) {
		return weighted{}, fmt.Errorf("no draw of the hyperparameters gave a positive definite kernel matrix")
	}
	out := weighted{resid: make([]float64, n), w: make([]float64, len(qs))}
	var sum float64
	for s, lw := range logw {
		out.w[s] = math.Exp(lw - top)
		sum += out.w[s]
	}
	for s := range out.w {
		out.w[s] /= sum
		if out.w[s] == 0 {
			continue
		}
		for i, v := range res[s] {
			out.resid[i] += out.w[s] * v
		}
	}
	return out, nil
}
