package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The location–scale families on the real line, and the log-normal.

func init() {
	register(normal{family{"normal", []string{"mu", "sigma"}, []string{"real", "positive"}}})
	register(cauchy{family{"cauchy", []string{"mu", "sigma"}, []string{"real", "positive"}}})
	register(studentT{family{"student_t", []string{"nu", "mu", "sigma"}, []string{"positive", "real", "positive"}}})
	register(laplace{family{"laplace", []string{"mu", "b"}, []string{"real", "positive"}}})
	register(lognormal{family{"lognormal", []string{"mu", "sigma"}, []string{"real", "positive"}}})
}

// normal(mu, sigma): log p = −½z² − log σ − ½ log 2π with z = (x − μ)/σ.
type normal struct{ family }

func (normal) dist(p []float64) distuv.Normal           { return distuv.Normal{Mu: p[0], Sigma: p[1]} }
func (f normal) LogProb(x float64, p []float64) float64 { return f.dist(p).LogProb(x) }
func (f normal) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	s := p[1]
	z := (x - p[0]) / s
	dp[0] = z / s
	dp[1] = (z*z - 1) / s
	return -0.5*z*z - math.Log(s) - logSqrt2Pi, -z / s
}
func (f normal) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (normal) Mean(p []float64) float64             { return p[0] }
func (normal) StdDev(p []float64) float64           { return p[1] }
func (normal) Support([]float64) (float64, float64) { return -inf, inf }

// cauchy(mu, sigma): log p = −log π − log σ − log(1 + z²). gonum has no
// Cauchy distribution.
type cauchy struct{ family }

func (cauchy) LogProb(x float64, p []float64) float64 {
	z := (x - p[0]) / p[1]
	return -logPi - math.Log(p[1]) - math.Log1p(z*z)
}
func (f cauchy) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	s := p[1]
	z := (x - p[0]) / s
	q := 1 + z*z
	dp[0] = 2 * z / (s * q)
	dp[1] = (z*z - 1) / (s * q)
	return f.LogProb(x, p), -dp[0]
}
func (cauchy) Rand(r *rand.Rand, p []float64) float64 {
	return p[0] + p[1]*math.Tan(math.Pi*(r.Float64()-0.5))
}
func (cauchy) Mean([]float64) float64               { return math.NaN() }
func (cauchy) StdDev([]float64) float64             { return math.NaN() }
func (cauchy) Support([]float64) (float64, float64) { return -inf, inf }

// student_t(nu, mu, sigma): log p = log Γ((ν+1)/2) − log Γ(ν/2) − ½ log νπ −
// log σ − (ν+1)/2 · log(1 + z²/ν).
type studentT struct{ family }

func (studentT) dist(p []float64) distuv.StudentsT {
	return distuv.StudentsT{Nu: p[0], Mu: p[1], Sigma: p[2]}
}
func (f studentT) LogProb(x float64, p []float64) float64 { return f.dist(p).LogProb(x) }
func (f studentT) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	nu, s := p[0], p[2]
	z := (x - p[1]) / s
	q := nu + z*z
	dx := -(nu + 1) * z / (s * q)
	dp[0] = 0.5*mathext.Digamma((nu+1)/2) - 0.5*mathext.Digamma(nu/2) - 0.5/nu -
		0.5*math.Log1p(z*z/nu) + (nu+1)*z*z/(2*nu*q)
	dp[1] = -dx
	dp[2] = -1/s + (nu+1)*z*z/(s*q)
	return f.LogProb(x, p), dx
}
func (f studentT) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (studentT) Mean(p []float64) float64 {
	if p[0] <= 1 {
		return math.NaN()
	}
	return p[1]
}
func (studentT) StdDev(p []float64) float64 {
	switch nu := p[0]; {
	case nu <= 1:
		return math.NaN()
	case nu <= 2:
		return inf
	default:
		return p[2] * math.Sqrt(nu/(nu-2))
	}
}
func (studentT) Support([]float64) (float64, float64) { return -inf, inf }

// laplace(mu, b): log p = −log 2b − |x − μ|/b.
type laplace struct{ family }

func (laplace) dist(p []float64) distuv.Laplace          { return distuv.Laplace{Mu: p[0], Scale: p[1]} }
func (f laplace) LogProb(x float64, p []float64) float64 { return f.dist(p).LogProb(x) }
func (f laplace) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	b := p[1]
	d := x - p[0]
	sign := 0.0
	if d > 0 {
		sign = 1
	} else if d < 0 {
		sign = -1
	}
	dp[0] = sign / b
	dp[1] = -1/b + math.Abs(d)/(b*b)
	return -math.Log(2*b) - math.Abs(d)/b, -sign / b
}
func (f laplace) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (laplace) Mean(p []float64) float64             { return p[0] }
func (laplace) StdDev(p []float64) float64           { return math.Sqrt2 * p[1] }
func (laplace) Support([]float64) (float64, float64) { return -inf, inf }

// lognormal(mu, sigma): log x ~ normal(μ, σ); log p = −log x − log σ −
// ½ log 2π − ½z², z = (log x − μ)/σ.
type lognormal struct{ family }

func (lognormal) dist(p []float64) distuv.LogNormal { return distuv.LogNormal{Mu: p[0], Sigma: p[1]} }
func (f lognormal) LogProb(x float64, p []float64) float64 {
	if x <= 0 {
		return -inf
	}
	return f.dist(p).LogProb(x)
}
func (f lognormal) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x <= 0 {
		dp[0], dp[1] = 0, 0
		return -inf, 0
	}
	s := p[1]
	lx := math.Log(x)
	z := (lx - p[0]) / s
	dp[0] = z / s
	dp[1] = (z*z - 1) / s
	return -lx - math.Log(s) - logSqrt2Pi - 0.5*z*z, -(1 + z/s) / x
}
func (f lognormal) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (f lognormal) Mean(p []float64) float64           { return f.dist(p).Mean() }
func (f lognormal) StdDev(p []float64) float64         { return f.dist(p).StdDev() }
func (lognormal) Support([]float64) (float64, float64) { return 0, inf }
