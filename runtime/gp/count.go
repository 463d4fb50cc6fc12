package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
)

// The count likelihoods, both with the log link (Stan's poisson_log and
// neg_binomial_2_log; GPML's likPoisson and likNegBinom with 'exp'), with
// μ = e^f:
//
//	Poisson:     log P(y | f) = y f − e^f − log y!
//	NegBinomial: log P(y | f) = log Γ(y + φ) − log y! − log Γ(φ) + φ log φ
//	                            + y f − (y + φ) log(e^f + φ),  Params [φ],
//
// the negative binomial with mean μ and variance μ + μ²/φ. Both are
// log-concave in f (−∂²log P/∂f² is e^f and (y + φ)p(1 − p), p = μ/(μ + φ)),
// so Laplace's Newton iteration has W > 0 throughout, and EP's tilted
// moments come from the same Simpson rule as the others', on the tilted
// distribution's own range (countTilted). Neither is
// super-Gaussian: e^f grows faster than any quadratic, so no Gaussian in f
// lies below log P for every f and the VB bound of sites.go does not exist
// for them (GPML's likPoisson and likNegBinom refuse infVB likewise).
const (
	Poisson LikKind = Normal + 1 + iota
	NegBinomial
)

// ErrCountVB refuses the super-Gaussian VB bound for a count likelihood.
var ErrCountVB = errors.New(`gp: the variational (VB) bound needs a likelihood bounded below by a Gaussian in f of every variance (super-Gaussian); a count likelihood's log P = y f − e^f + ... falls faster than any quadratic as f grows, so no such bound exists; use approx: "laplace" or "ep"`)

// isCount reports a count likelihood.
func (l Lik) isCount() bool { return l.Kind == Poisson || l.Kind == NegBinomial }

// logAddExp is log(e^a + e^b) without overflow.
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// countNormaliser is the part of a count likelihood's log P(y | f) that
// does not depend on f, with its derivative in φ added to dp: −log y! for
// the Poisson; log Γ(y + φ) − log y! − log Γ(φ) + φ log φ for the negative
// binomial.
func (l Lik) countNormaliser(dp []float64, y float64) float64 {
	ly, _ := math.Lgamma(y + 1)
	if l.Kind == Poisson {
		return -ly
	}
	phi := l.Params[0]
	a, _ := math.Lgamma(y + phi)
	b, _ := math.Lgamma(phi)
	dp[0] += mathext.Digamma(y+phi) - mathext.Digamma(phi) + math.Log(phi) + 1
	return a - ly - b + phi*math.Log(phi)
}

// countLogProb is c0 (countNormaliser's value, its φ-derivative in d0)
// plus the f-dependent part of log P(y | f), with the derivative in φ
// added to dp.
func (l Lik) countLogProb(dp []float64, y, f, c0 float64, d0 []float64) float64 {
	if l.Kind == Poisson {
		return c0 + y*f - math.Exp(f)
	}
	phi := l.Params[0]
	lse := logAddExp(f, math.Log(phi)) // log(e^f + φ)
	// ∂/∂φ of −(y + φ) log(e^f + φ) is −log(e^f + φ) − (y + φ)/(e^f + φ).
	dp[0] += d0[0] - lse - (y+phi)*math.Exp(-lse)
	return c0 + y*f - (y+phi)*lse
}

// countDerivs are log P(y | f) and its first three derivatives in f:
// Poisson y − μ, −μ, −μ; negative binomial, with p = μ/(μ + φ),
// y − (y + φ)p, −(y + φ)p(1 − p), −(y + φ)p(1 − p)(1 − 2p).
func (l Lik) countDerivs(y, f float64) (lp, d1, d2, d3 float64) {
	var d0, dp [1]float64
	lp = l.countLogProb(dp[:], y, f, l.countNormaliser(d0[:], y), d0[:])
	d1, d2, d3 = l.countFDerivs(y, f)
	return lp, d1, d2, d3
}

// countFDerivs are countDerivs' three derivatives in f alone, without the
// log density (whose normaliser costs three log-gammas).
func (l Lik) countFDerivs(y, f float64) (d1, d2, d3 float64) {
	if l.Kind == Poisson {
		mu := math.Exp(f)
		return y - mu, -mu, -mu
	}
	phi := l.Params[0]
	p := 1 / (1 + phi*math.Exp(-f)) // μ/(μ + φ)
	q := 1 - p
	if f > 0 {
		q = 1 / (1 + math.Exp(f)/phi)
	}
	return y - (y+phi)*p, -(y + phi) * p * q, -(y + phi) * p * q * (q - p)
}

// countParamDerivs adds to dlp, dd1 and dd2 the φ-derivatives of the
// negative binomial's log P, ∂log P/∂f and ∂²log P/∂f²: with p and q = 1 − p
// as in countDerivs, ∂p/∂φ = −pq/φ, so ∂d1/∂φ = −p + (y + φ)pq/φ and
// ∂d2/∂φ = −pq − (y + φ)(∂p/∂φ)(q − p).
func (l Lik) countParamDerivs(dlp, dd1, dd2 []float64, y, f float64) {
	if l.Kind != NegBinomial {
		return
	}
	var d0 [1]float64
	l.countLogProb(dlp, y, f, l.countNormaliser(d0[:], y), d0[:])
	phi := l.Params[0]
	p := 1 / (1 + phi*math.Exp(-f))
	q := 1 - p
	if f > 0 {
		q = 1 / (1 + math.Exp(f)/phi)
	}
	dp := -p * q / phi
	dd1[0] += -p - (y+phi)*dp
	dd2[0] += -p*q - (y+phi)*dp*(q-p)
}

// countTilted is where the tilted integral of count y under the cavity
// N(m, v) puts its nodes. The tilted log density h(f) = log P(y | f) −
// (f − m)²/2v is concave (both terms are), so its mode c is the root of
// the decreasing h', found by Newton's method kept inside a bracket (the
// mode lies between m and log y, where ∂log P/∂f changes sign; below m
// for y = 0); scale is its sd at the mode, (1/v − ∂²log P/∂f²)^(−½), never
// above √v, where tilted puts its fine nodes. Since ∂²h/∂f² ≤ −1/v, h falls
// at least as fast as the cavity's log density away from c, so [lo, hi] =
// c ± 12√v holds all of the tilted mass, as m ± 12√v does for the bounded
// likelihoods; all three move smoothly with m and v, as EP's fixed point
// needs.
func (l Lik) countTilted(y, m, v float64) (c, scale, lo, hi float64) {
	dh := func(f float64) (float64, float64) {
		_, d1, d2, _ := l.countDerivs(y, f)
		return d1 - (f-m)/v, d2 - 1/v
	}
	a, b := m, m
	if y > 0 {
		a, b = math.Min(m, math.Log(y)), math.Max(m, math.Log(y))
	} else {
		for step := math.Max(1, v); ; step *= 2 {
			a = m - step
			if g, _ := dh(a); g > 0 || step > 1e6 {
				break
			}
		}
	}
	c = (a + b) / 2
	for range 200 {
		g, gp := dh(c)
		if g > 0 {
			a = c
		} else {
			b = c
		}
		next := c - g/gp
		if !(next > a && next < b) {
			next = (a + b) / 2
		}
		done := math.Abs(next-c) <= 1e-13*(1+math.Abs(c)) || b-a <= 1e-13*(1+math.Abs(c))
		c = next
		if done {
			break
		}
	}
	_, gp := dh(c)
	sd := math.Sqrt(v)
	return c, math.Min(1/math.Sqrt(-gp), sd), c - 12*sd, c + 12*sd
}

// checkCounts validates counts: whole numbers ≥ 0.
func (l Lik) checkCounts(y []float64) error {
	if l.Kind == NegBinomial && !(l.Params[0] > 0 && !math.IsInf(l.Params[0], 1)) {
		return fmt.Errorf("neg_binomial_2: phi must be a positive finite number, got %v", l.Params[0])
	}
	for i, v := range y {
		if !(v >= 0) || v != math.Trunc(v) || math.IsInf(v, 1) {
			return fmt.Errorf("count %d is %v; counts must be whole numbers ≥ 0", i+1, v)
		}
	}
	return nil
}

// countMAP is the joint MAP latent function of a count likelihood, the
// mode f̂ of log P(y | f) − ½fᵀK⁻¹f by LaplaceMode's Newton iteration,
// returned as the Gaussian sites of Laplace's expansion at f̂: γ_i = 1/W_i
// and m_i = f̂_i + γ_i ∂log P/∂f_i, so that (K + Γ)α̂ = f̂ + Γα̂ = m with
// α̂ = K⁻¹f̂ = ∇log P(f̂): GP regression on m with noise Γ has mean f̂ (and
// m − Γα = f̂, as sitesPosterior reads û), and its covariance is
// Laplace's (K⁻¹ + W)⁻¹.
func countMAP(K *mat.SymDense, y []float64, l Lik) (*Sites, error) {
	f, _, iters, err := LaplaceMode(K, y, l)
	if err != nil {
		return nil, err
	}
	s := &Sites{Gamma: make([]float64, len(f)), M: make([]float64, len(f)), Iterations: iters}
	for i := range f {
		_, d1, d2, _ := l.derivs(y[i], f[i])
		s.Gamma[i] = 1 / -d2
		s.M[i] = f[i] + s.Gamma[i]*d1
	}
	return s, nil
}
