package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/kml-lang/kml/runtime/dist"
)

// Lik is a non-Gaussian likelihood P(y_i | u_i) of a latent GP with its
// own parameters: Laplace (Params = [b]), Student-t ([ν, s]), Bernoulli
// with the logistic link (none; y in {−1, 1}), or the counts of count.go,
// Poisson (none) and negative binomial ([φ]), both with the log link.
type Lik struct {
	Kind   LikKind
	Params []float64
}

// LikKind names a likelihood.
type LikKind int

const (
	Laplace LikKind = iota
	StudentT
	Logit
)

// Each likelihood is super-Gaussian (Nickisch and Seeger, section 2.3): for
// every γ > 0 it is bounded below by a Gaussian site in u of variance γ,
//
//	log P(y | u) ≥ −(u − m)²/(2γ) + c(γ),
//
// with equality at the γ that the residual's second moment picks. The
// bounds used here, with r = u − y for the location families:
//
//	Laplace:   |r|/b ≤ r²/(2γ) + γ/(2b²)                    (tight at γ = b|r|)
//	Student-t: log(1 + x) ≤ log A + (1 + x)/A − 1, x = r²/(νs²), A = (ν+1)γ/(νs²)
//	           (tight at γ = (r² + νs²)/(ν+1))
//	logistic:  log σ(yu) ≥ log σ(ξ) + (yu − ξ)/2 − λ(ξ)(u² − ξ²),
//	           λ(ξ) = tanh(ξ/2)/(4ξ), γ = 1/(2λ)  (tight at ξ = |u|; Jaakkola
//	           and Jordan 2000), so m = γy/2.
//
// Given the second moment e2 = E[r²] (E[u²] for the logistic), gamma is
// the γ that maximises the expected bound.
func (l Lik) gamma(e2 float64) float64 {
	switch l.Kind {
	case Laplace:
		return l.Params[0] * math.Sqrt(e2)
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		return (e2 + nu*s*s) / (nu + 1)
	default:
		xi := math.Sqrt(e2)
		return 1 / (2 * lambdaJJ(xi))
	}
}

// lambdaJJ is λ(ξ) = tanh(ξ/2)/(4ξ), 1/8 at ξ = 0.
func lambdaJJ(xi float64) float64 {
	if xi < 1e-6 {
		return 0.125 - xi*xi/96
	}
	return math.Tanh(xi/2) / (4 * xi)
}

// target is the site's mean m for observation y at variance gamma.
func (l Lik) target(y, gamma float64) float64 {
	if l.Kind == Logit {
		return gamma * y / 2
	}
	return y
}

// second is the second moment the site's γ depends on, for the latent
// function's mean mu and variance z.
func (l Lik) second(y, mu, z float64) float64 {
	if l.Kind == Logit {
		return mu*mu + z
	}
	return (mu-y)*(mu-y) + z
}

// siteConst is the part of a site's contribution to the bound that is not
// the Gaussian integral log N(m | 0, K + Γ): ½ log 2πγ + c(γ) (+ γ/8, the
// logistic's completed square), with its derivative in the likelihood's
// parameters at fixed γ written into dp.
func (l Lik) siteConst(dp []float64, gamma float64) float64 {
	base := 0.5 * math.Log(2*math.Pi*gamma)
	switch l.Kind {
	case Laplace:
		b := l.Params[0]
		dp[0] += -1/b + gamma/(b*b*b)
		return base - math.Log(2*b) - gamma/(2*b*b)
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		a := (nu + 1) * gamma / (nu * s * s)
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg2, _ := math.Lgamma(nu / 2)
		logC := lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(s)
		br := math.Log(a) - 1 + 1/a
		dp[0] += 0.5*mathext.Digamma((nu+1)/2) - 0.5*mathext.Digamma(nu/2) - 0.5/nu - 0.5*br + (1-1/a)/(2*nu)
		dp[1] += -1/s + (nu+1)*(1-1/a)/s
		return base + logC - (nu+1)/2*br
	default:
		// γ = 1/(2λ(ξ)) fixes ξ; recover it from γ by bisection-free
		// bookkeeping: the caller keeps ξ with γ (see xiOf).
		xi := xiOf(gamma)
		lam := 1 / (2 * gamma)
		return base + gamma/8 + logSigmoid(xi) - xi/2 + lam*xi*xi
	}
}

// xiOf inverts γ = 1/(2λ(ξ)) for ξ ≥ 0 (λ decreases from 1/8, so γ ≥ 4)
// by Newton's method on λ.
func xiOf(gamma float64) float64 {
	lam := 1 / (2 * gamma)
	if lam >= 0.125 {
		return 0
	}
	// For large ξ, λ ≈ 1/(4ξ).
	xi := math.Max(1/(4*lam), 1e-3)
	for range 100 {
		f := lambdaJJ(xi) - lam
		// dλ/dξ = (ξ/(2cosh²(ξ/2)) − tanh(ξ/2)) / (4ξ²).
		c := math.Cosh(xi / 2)
		df := (xi/(2*c*c) - math.Tanh(xi/2)) / (4 * xi * xi)
		step := f / df
		next := xi - step
		if next <= 0 {
			next = xi / 2
		}
		if math.Abs(next-xi) <= 1e-14*xi {
			return next
		}
		xi = next
	}
	return xi
}

func logSigmoid(x float64) float64 { return -dist.Softplus(-x) }

// logProb is the exact log P(y | u) with its derivative in the
// likelihood's parameters added to dp.
//
// Each case has a buffer of its own: one shared by all escapes (the
// families' LogProbGrad is an interface call), and the logistic's case,
// which runs for every observation at every Newton step, then allocated
// it at every call.
func (l Lik) logProb(dp []float64, y, u float64) float64 {
	switch l.Kind {
	case Laplace:
		var buf [2]float64
		f, _ := dist.Lookup("laplace")
		lp, _ := f.LogProbGrad(buf[:2], y, []float64{u, l.Params[0]})
		dp[0] += buf[1]
		return lp
	case StudentT:
		var buf [3]float64
		f, _ := dist.Lookup("student_t")
		lp, _ := f.LogProbGrad(buf[:3], y, []float64{l.Params[0], u, l.Params[1]})
		dp[0] += buf[0]
		dp[1] += buf[2]
		return lp
	case Poisson, NegBinomial:
		var buf [1]float64
		return l.countLogProb(dp, y, u, l.countNormaliser(buf[:], y), buf[:])
	default:
		return logSigmoid(y * u)
	}
}

// check validates the parameters and the observations.
func (l Lik) check(y []float64) error {
	switch l.Kind {
	case Laplace:
		if !(l.Params[0] > 0) {
			return fmt.Errorf("laplace: b must be positive, got %v", l.Params[0])
		}
	case StudentT:
		if !(l.Params[0] > 0) || !(l.Params[1] > 0) {
			return fmt.Errorf("student_t: nu and sigma must be positive, got %v and %v", l.Params[0], l.Params[1])
		}
	case Logit:
		for i, v := range y {
			if v != 1 && v != -1 {
				return fmt.Errorf("label %d is %v; labels must be −1 or 1", i+1, v)
			}
		}
	case Poisson, NegBinomial:
		return l.checkCounts(y)
	}
	return nil
}
