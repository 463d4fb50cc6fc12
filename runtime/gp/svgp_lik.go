package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mathext"
)

// ghRule is the Gauss–Hermite rule for expectations under a normal
// distribution: E[φ(f)] ≈ Σ_k w_k φ(μ + √2·σ·t_k) for f ~ N(μ, σ²), with
// the nodes t_k and weights (already divided by √π, so they sum to 1) of
// gonum's quad.Hermite. It is exact for polynomials of degree < 2·len(t).
type ghRule struct{ t, w []float64 }

// newGH returns the rule with n nodes.
func newGH(n int) ghRule {
	r := ghRule{t: make([]float64, n), w: make([]float64, n)}
	quad.Hermite{}.FixedLocations(r.t, r.w, math.Inf(-1), math.Inf(1))
	for k := range r.w {
		r.w[k] /= math.SqrtPi
	}
	return r
}

// checkSVGP says whether SVGP takes likelihood l: its log-density must be
// twice differentiable in the latent value (the Laplace likelihood's kink
// makes the variance's derivative a point mass the quadrature misses).
func (l Lik) checkSVGP() error {
	switch l.Kind {
	case Normal, Logit, StudentT, Poisson, NegBinomial:
		return nil
	}
	return fmt.Errorf("gp: SVGP takes normal, student_t, bernoulli_logit, poisson_log or neg_binomial_2_log observations (a log-density twice differentiable in f), not laplace; use the exact latent GP's approx: \"ep\" or \"vb\"")
}

// expected returns E = E[log P(y | f)] for f ~ N(mu, v) with its
// derivatives dmu = ∂E/∂μ and dv = ∂E/∂v, and adds ∂E/∂p to dp for the
// likelihood's parameters p: in closed form for the normal and Poisson
// likelihoods, by the rule r otherwise. For the Poisson (log link),
// E[e^f] = e^(μ + v/2), the lognormal mean, so
//
//	E = yμ − e^(μ + v/2) − log y!,  dmu = y − e^(μ + v/2),  dv = −½e^(μ + v/2),
//
// exact at every v, where the rule's error grows with v (e^f is no
// polynomial). The quadrature's derivatives are those of its own
// value, Σ_k w_k log P(y | μ + √(2v)·t_k): dmu = Σ_k w_k ℓ′(f_k) and
// dv = Σ_k w_k ℓ′(f_k) t_k/√(2v), so that the gradient the optimiser
// follows is exactly that of the ELBO it reports (Price's theorem,
// ½E[ℓ″], is the same in the limit of many nodes and is used at v = 0).
func (l Lik) expected(r ghRule, y, mu, v float64, dp []float64) (e, dmu, dv float64) {
	switch l.Kind {
	case Normal:
		s := l.Params[0]
		s2 := s * s
		q := (y-mu)*(y-mu) + v
		dp[0] += -1/s + q/(s2*s)
		return -0.5*math.Log(2*math.Pi*s2) - 0.5*q/s2, (y - mu) / s2, -0.5 / s2
	case Logit:
		sd := math.Sqrt2 * math.Sqrt(v)
		for k, t := range r.t {
			f := mu + sd*t
			sp := 1 / (1 + math.Exp(y*f)) // σ(−yf)
			w := r.w[k]
			e += w * logSigmoid(y*f)
			dmu += w * y * sp
			if sd > 0 {
				dv += w * y * sp * t
			} else {
				dv -= 0.5 * w * sp * (1 - sp)
			}
		}
		if sd > 0 {
			dv /= sd // ∂f_k/∂v = t_k/√(2v) = t_k/sd
		}
		return e, dmu, dv
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		ns2 := nu * s * s
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg2, _ := math.Lgamma(nu / 2)
		e = lg1 - lg2 - 0.5*math.Log(nu*math.Pi) - math.Log(s)
		dp[0] += 0.5*mathext.Digamma((nu+1)/2) - 0.5*mathext.Digamma(nu/2) - 0.5/nu
		dp[1] -= 1 / s
		sd := math.Sqrt2 * math.Sqrt(v)
		for k, t := range r.t {
			res := y - (mu + sd*t)
			r2 := res * res
			x := r2 / ns2
			w := r.w[k]
			e -= w * (nu + 1) / 2 * math.Log1p(x)
			d1 := (nu + 1) * res / (ns2 + r2)
			dmu += w * d1
			if sd > 0 {
				dv += w * d1 * t
			} else {
				dv -= 0.5 * w * (nu + 1) * (ns2 - r2) / ((ns2 + r2) * (ns2 + r2))
			}
			dp[0] += w * (-0.5*math.Log1p(x) + (nu+1)/2*x/(nu*(1+x)))
			dp[1] += w * (nu + 1) * x / (s * (1 + x))
		}
		if sd > 0 {
			dv /= sd
		}
		return e, dmu, dv
	case Poisson:
		ef := math.Exp(mu + v/2)
		return l.countNormaliser(dp, y) + y*mu - ef, y - ef, -0.5 * ef
	case NegBinomial:
		// The normaliser (log-gammas, and its φ-derivative) once; the rule
		// on the part of log P that moves with f, count.go's with c0 = 0.
		e = l.countNormaliser(dp, y)
		var zero, dk [1]float64
		sd := math.Sqrt2 * math.Sqrt(v)
		for k, t := range r.t {
			f := mu + sd*t
			w := r.w[k]
			dk[0] = 0
			e += w * l.countLogProb(dk[:], y, f, 0, zero[:])
			dp[0] += w * dk[0]
			d1, d2, _ := l.countFDerivs(y, f)
			dmu += w * d1
			if sd > 0 {
				dv += w * d1 * t
			} else {
				dv += 0.5 * w * d2
			}
		}
		if sd > 0 {
			dv /= sd
		}
		return e, dmu, dv
	}
	panic("gp: expected: " + l.checkSVGP().Error())
}
