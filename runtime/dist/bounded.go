package dist

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The families on bounded intervals, and bernoulli_logit on {0, 1}.

func init() {
	register(beta{family{"beta", []string{"a", "b"}, []string{"positive", "positive"}}})
	register(uniform{family{"uniform", []string{"lo", "hi"}, []string{"real", "real"}}})
	register(bernoulliLogit{family{"bernoulli_logit", []string{"alpha"}, []string{"real"}}})
}

// beta(a, b): log p = (a − 1) log x + (b − 1) log(1 − x) − log B(a, b).
type beta struct{ family }

func (beta) dist(p []float64) distuv.Beta { return distuv.Beta{Alpha: p[0], Beta: p[1]} }
func (f beta) LogProb(x float64, p []float64) float64 {
	if x <= 0 || x >= 1 {
		return -inf
	}
	return f.dist(p).LogProb(x)
}
func (f beta) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x <= 0 || x >= 1 {
		dp[0], dp[1] = 0, 0
		return -inf, 0
	}
	a, b := p[0], p[1]
	lx, l1x := math.Log(x), math.Log1p(-x)
	dab := mathext.Digamma(a + b)
	dp[0] = lx - mathext.Digamma(a) + dab
	dp[1] = l1x - mathext.Digamma(b) + dab
	lp := (a-1)*lx + (b-1)*l1x - (lgamma(a) + lgamma(b) - lgamma(a+b))
	return lp, (a-1)/x - (b-1)/(1-x)
}
func (f beta) Rand(r *rand.Rand, p []float64) float64 {
	d := f.dist(p)
	d.Src = r
	return d.Rand()
}
func (beta) Mean(p []float64) float64 { return p[0] / (p[0] + p[1]) }
func (beta) StdDev(p []float64) float64 {
	s := p[0] + p[1]
	return math.Sqrt(p[0] * p[1] / (s * s * (s + 1)))
}
func (beta) Support([]float64) (float64, float64) { return 0, 1 }

// uniform(lo, hi): log p = −log(hi − lo) on (lo, hi).
type uniform struct{ family }

func (f uniform) Check(p []float64) error {
	if err := f.family.Check(p); err != nil {
		return err
	}
	if p[0] >= p[1] {
		return fmt.Errorf("uniform: lo must be less than hi, got lo = %v and hi = %v", p[0], p[1])
	}
	return nil
}
func (uniform) LogProb(x float64, p []float64) float64 {
	if x < p[0] || x > p[1] {
		return -inf
	}
	return -math.Log(p[1] - p[0])
}
func (f uniform) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x < p[0] || x > p[1] {
		dp[0], dp[1] = 0, 0
		return -inf, 0
	}
	w := p[1] - p[0]
	dp[0], dp[1] = 1/w, -1/w
	return -math.Log(w), 0
}
func (uniform) Rand(r *rand.Rand, p []float64) float64 {
	d := distuv.Uniform{Min: p[0], Max: p[1], Src: r}
	return d.Rand()
}
func (uniform) Mean(p []float64) float64               { return (p[0] + p[1]) / 2 }
func (uniform) StdDev(p []float64) float64             { return (p[1] - p[0]) / math.Sqrt(12) }
func (uniform) Support(p []float64) (float64, float64) { return p[0], p[1] }

// BoundParams says the support's ends are the parameters lo and hi, so a
// model may let them depend on other parameters.
func (uniform) BoundParams() (lo, hi int) { return 0, 1 }

// bernoulli_logit(alpha): P(x = 1) = Logistic(α); log p = xα − log(1 + e^α).
type bernoulliLogit struct{ family }

func (bernoulliLogit) Discrete() bool { return true }
func (bernoulliLogit) LogProb(x float64, p []float64) float64 {
	switch x {
	case 1:
		return -Softplus(-p[0])
	case 0:
		return -Softplus(p[0])
	}
	return -inf
}
func (f bernoulliLogit) LogProbGrad(dp []float64, x float64, p []float64) (float64, float64) {
	if x != 0 && x != 1 {
		dp[0] = 0
		return -inf, 0
	}
	dp[0] = x - Logistic(p[0])
	return f.LogProb(x, p), 0
}
func (bernoulliLogit) Rand(r *rand.Rand, p []float64) float64 {
	if r.Float64() < Logistic(p[0]) {
		return 1
	}
	return 0
}
func (bernoulliLogit) Mean(p []float64) float64 { return Logistic(p[0]) }
func (bernoulliLogit) StdDev(p []float64) float64 {
	q := Logistic(p[0])
	return math.Sqrt(q * (1 - q))
}
func (bernoulliLogit) Support([]float64) (float64, float64) { return 0, 1 }
