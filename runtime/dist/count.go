package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The count families, parameterised as Stan parameterises them: poisson and
// poisson_log, binomial and binomial_logit, neg_binomial_2 (mean μ and
// dispersion φ, variance μ + μ²/φ) and neg_binomial_2_log.
func init() {
	register(poisson{family{"poisson", []string{"lambda"}, []string{"nonnegative"}}, false})
	register(poisson{family{"poisson_log", []string{"eta"}, []string{"real"}}, true})
	register(binomial{family{"binomial", []string{"n", "p"}, []string{"count", "probability"}}, false})
	register(binomial{family{"binomial_logit", []string{"n", "alpha"}, []string{"count", "real"}}, true})
	register(negBinomial2{family{"neg_binomial_2", []string{"mu", "phi"}, []string{"positive", "positive"}}, false})
	register(negBinomial2{family{"neg_binomial_2_log", []string{"eta", "phi"}, []string{"real", "positive"}}, true})
}

// isCount reports a whole number ≥ 0.
func isCount(x float64) bool { return x >= 0 && x == math.Trunc(x) && !math.IsInf(x, 1) }

// poisson(λ): log p = y log λ − λ − log y!; poisson_log(η) has λ = e^η.
type poisson struct {
	family
	log bool
}

func (poisson) Discrete() bool { return true }

func (f poisson) rate(p []float64) float64 {
	if f.log {
		return math.Exp(p[0])
	}
	return p[0]
}

func (f poisson) LogProb(y float64, p []float64) float64 {
	lp, _ := f.LogProbGrad(make([]float64, 1), y, p)
	return lp
}

func (f poisson) LogProbGrad(dp []float64, y float64, p []float64) (float64, float64) {
	dp[0] = 0
	if !isCount(y) {
		return -inf, 0
	}
	lam := f.rate(p)
	var ylog float64 // y log λ, with 0 log 0 = 0
	switch {
	case f.log:
		ylog = y * p[0]
	case y > 0:
		ylog = y * math.Log(lam)
	}
	if f.log {
		dp[0] = y - lam // d/dη
	} else if lam > 0 {
		dp[0] = y/lam - 1
	}
	return ylog - lam - lgamma(y+1), 0
}

func (f poisson) Rand(r *rand.Rand, p []float64) float64 {
	lam := f.rate(p)
	if lam == 0 {
		return 0
	}
	return distuv.Poisson{Lambda: lam, Src: r}.Rand()
}
func (f poisson) Mean(p []float64) float64           { return f.rate(p) }
func (f poisson) StdDev(p []float64) float64         { return math.Sqrt(f.rate(p)) }
func (poisson) Support([]float64) (float64, float64) { return 0, inf }

// binomial(n, θ): log p = log C(n, y) + y log θ + (n − y) log(1 − θ);
// binomial_logit(n, α) has θ = logistic(α), computed without overflow.
type binomial struct {
	family
	logit bool
}

func (binomial) Discrete() bool { return true }

func (f binomial) LogProb(y float64, p []float64) float64 {
	lp, _ := f.LogProbGrad(make([]float64, 2), y, p)
	return lp
}

func (f binomial) LogProbGrad(dp []float64, y float64, p []float64) (float64, float64) {
	dp[0], dp[1] = 0, 0
	n := p[0]
	if !isCount(y) || y > n {
		return -inf, 0
	}
	choose := lgamma(n+1) - lgamma(y+1) - lgamma(n-y+1)
	if f.logit {
		a := p[1]
		// log θ = −softplus(−α), log(1 − θ) = −softplus(α).
		dp[1] = y - n*Logistic(a)
		return choose - y*Softplus(-a) - (n-y)*Softplus(a), 0
	}
	th := p[1]
	lp := choose
	if y > 0 {
		lp += y * math.Log(th)
	}
	if n-y > 0 {
		lp += (n - y) * math.Log1p(-th)
	}
	if th > 0 && th < 1 {
		dp[1] = y/th - (n-y)/(1-th)
	}
	return lp, 0
}

func (f binomial) prob(p []float64) float64 {
	if f.logit {
		return Logistic(p[1])
	}
	return p[1]
}

func (f binomial) Rand(r *rand.Rand, p []float64) float64 {
	return distuv.Binomial{N: p[0], P: f.prob(p), Src: r}.Rand()
}
func (f binomial) Mean(p []float64) float64 { return p[0] * f.prob(p) }
func (f binomial) StdDev(p []float64) float64 {
	q := f.prob(p)
	return math.Sqrt(p[0] * q * (1 - q))
}
func (binomial) Support(p []float64) (float64, float64) { return 0, p[0] }

// neg_binomial_2(μ, φ): log p = log Γ(y + φ) − log y! − log Γ(φ)
// + y log μ + φ log φ − (y + φ) log(μ + φ); neg_binomial_2_log(η, φ) has
// μ = e^η.
type negBinomial2 struct {
	family
	log bool
}

func (negBinomial2) Discrete() bool { return true }

func (f negBinomial2) mean(p []float64) float64 {
	if f.log {
		return math.Exp(p[0])
	}
	return p[0]
}

func (f negBinomial2) LogProb(y float64, p []float64) float64 {
	lp, _ := f.LogProbGrad(make([]float64, 2), y, p)
	return lp
}

func (f negBinomial2) LogProbGrad(dp []float64, y float64, p []float64) (float64, float64) {
	dp[0], dp[1] = 0, 0
	if !isCount(y) {
		return -inf, 0
	}
	mu, phi := f.mean(p), p[1]
	logMu := math.Log(mu)
	if f.log {
		logMu = p[0]
	}
	logSum := math.Log(mu + phi)
	lp := lgamma(y+phi) - lgamma(y+1) - lgamma(phi) + y*logMu + phi*math.Log(phi) - (y+phi)*logSum
	dmu := y/mu - (y+phi)/(mu+phi)
	if f.log {
		dp[0] = y - mu*(y+phi)/(mu+phi) // μ · d/dμ
	} else {
		dp[0] = dmu
	}
	dp[1] = mathext.Digamma(y+phi) - mathext.Digamma(phi) + math.Log(phi) + 1 - logSum - (y+phi)/(mu+phi)
	return lp, 0
}

// Rand draws the gamma–Poisson mixture: λ ~ Gamma(φ, rate φ/μ), y ~ Poisson(λ).
func (f negBinomial2) Rand(r *rand.Rand, p []float64) float64 {
	mu, phi := f.mean(p), p[1]
	lam := distuv.Gamma{Alpha: phi, Beta: phi / mu, Src: r}.Rand()
	if lam == 0 {
		return 0
	}
	return distuv.Poisson{Lambda: lam, Src: r}.Rand()
}
func (f negBinomial2) Mean(p []float64) float64 { return f.mean(p) }
func (f negBinomial2) StdDev(p []float64) float64 {
	mu := f.mean(p)
	return math.Sqrt(mu + mu*mu/p[1])
}
func (negBinomial2) Support([]float64) (float64, float64) { return 0, inf }
