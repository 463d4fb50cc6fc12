package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The families on the positive half-line.

func init() {
	register(gamma{family{"gamma", []string{"alpha", "beta"}, []string{"positive", "positive"}}})
	register(invGamma{family{"inv_gamma", []string{"alpha", "beta"}, []string{"positive", "positive"}}})
	register(exponential{family{"exponential", []string{"beta"}, []string{"positive"}}})
	register(halfNormal{family{"half_normal", []string{"sigma"}, []string{"positive"}}})
	register(halfCauchy{family{"half_cauchy", []string{"sigma"}, []string{"positive"}}})
}

// gamma(alpha, beta), shape and rate as in Stan:
// log p = α log β − log Γ(α) + (α − 1) log x − βx.
type gamma struct{ family }

func (gamma) dist(p []float64) distuv.Gamma { return distuv.Gamma{Alpha: p[0], Beta: p[1]} }
func (f gamma) LogProb(x float64, p []float64) float64 {
	if x <= 0 {
		return -inf
	}
	return f.dist(p).LogProb(x)
}
func (f gamma) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x <= 0 {
		dp[0], dp[1] = 0, 0
		return -inf, 0
	}
	a, b := p[0], p[1]
	lx := math.Log(x)
	dp[0] = math.Log(b) - mathext.Digamma(a) + lx
	dp[1] = a/b - x
	return a*math.Log(b) - lgamma(a) + (a-1)*lx - b*x, (a-1)/x - b
}
func (f gamma) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (gamma) Mean(p []float64) float64             { return p[0] / p[1] }
func (gamma) StdDev(p []float64) float64           { return math.Sqrt(p[0]) / p[1] }
func (gamma) Support([]float64) (float64, float64) { return 0, inf }

// inv_gamma(alpha, beta), shape and scale: 1/x ~ gamma(α, β);
// log p = α log β − log Γ(α) − (α + 1) log x − β/x.
type invGamma struct{ family }

func (invGamma) dist(p []float64) distuv.InverseGamma {
	return distuv.InverseGamma{Alpha: p[0], Beta: p[1]}
}
func (f invGamma) LogProb(x float64, p []float64) float64 { return f.dist(p).LogProb(x) }
func (f invGamma) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x <= 0 {
		dp[0], dp[1] = 0, 0
		return -inf, 0
	}
	a, b := p[0], p[1]
	lx := math.Log(x)
	dp[0] = math.Log(b) - mathext.Digamma(a) - lx
	dp[1] = a/b - 1/x
	return a*math.Log(b) - lgamma(a) - (a+1)*lx - b/x, -(a+1)/x + b/(x*x)
}
func (f invGamma) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (invGamma) Mean(p []float64) float64 {
	if p[0] <= 1 {
		return inf
	}
	return p[1] / (p[0] - 1)
}
func (invGamma) StdDev(p []float64) float64 {
	if p[0] <= 2 {
		return inf
	}
	return p[1] / ((p[0] - 1) * math.Sqrt(p[0]-2))
}
func (invGamma) Support([]float64) (float64, float64) { return 0, inf }

// exponential(beta), rate: log p = log β − βx.
type exponential struct{ family }

func (exponential) dist(p []float64) distuv.Exponential      { return distuv.Exponential{Rate: p[0]} }
func (f exponential) LogProb(x float64, p []float64) float64 { return f.dist(p).LogProb(x) }
func (f exponential) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x < 0 {
		dp[0] = 0
		return -inf, 0
	}
	b := p[0]
	dp[0] = 1/b - x
	return math.Log(b) - b*x, -b
}
func (f exponential) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (exponential) Mean(p []float64) float64             { return 1 / p[0] }
func (exponential) StdDev(p []float64) float64           { return 1 / p[0] }
func (exponential) Support([]float64) (float64, float64) { return 0, inf }

// half_normal(sigma): |y| for y ~ normal(0, σ);
// log p = log 2 − log σ − ½ log 2π − ½(x/σ)² for x ≥ 0.
type halfNormal struct{ family }

func (halfNormal) LogProb(x float64, p []float64) float64 {
	if x < 0 {
		return -inf
	}
	z := x / p[0]
	return math.Ln2 - math.Log(p[0]) - logSqrt2Pi - 0.5*z*z
}
func (f halfNormal) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x < 0 {
		dp[0] = 0
		return -inf, 0
	}
	s := p[0]
	z := x / s
	dp[0] = (z*z - 1) / s
	return f.LogProb(x, p), -z / s
}
func (halfNormal) Rand(r *rand.Rand, p []float64) float64 { return math.Abs(r.NormFloat64()) * p[0] }
func (halfNormal) Mean(p []float64) float64               { return p[0] * math.Sqrt(2/math.Pi) }
func (halfNormal) StdDev(p []float64) float64             { return p[0] * math.Sqrt(1-2/math.Pi) }
func (halfNormal) Support([]float64) (float64, float64)   { return 0, inf }

// half_cauchy(sigma): |y| for y ~ cauchy(0, σ);
// log p = log 2 − log π − log σ − log(1 + (x/σ)²) for x ≥ 0.
type halfCauchy struct{ family }

func (halfCauchy) LogProb(x float64, p []float64) float64 {
	if x < 0 {
		return -inf
	}
	z := x / p[0]
	return math.Ln2 - logPi - math.Log(p[0]) - math.Log1p(z*z)
}
func (f halfCauchy) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x < 0 {
		dp[0] = 0
		return -inf, 0
	}
	s := p[0]
	q := s*s + x*x
	dp[0] = -1/s + 2*x*x/(s*q)
	return f.LogProb(x, p), -2 * x / q
}
func (halfCauchy) Rand(r *rand.Rand, p []float64) float64 {
	return math.Abs(p[0] * math.Tan(math.Pi*(r.Float64()-0.5)))
}
func (halfCauchy) Mean([]float64) float64               { return inf }
func (halfCauchy) StdDev([]float64) float64             { return inf }
func (halfCauchy) Support([]float64) (float64, float64) { return 0, inf }
