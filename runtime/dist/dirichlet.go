package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distmv"
)

// SimplexTol is how far from 1 the sum of a simplex's elements may be: a
// value read from a file or typed by hand is a simplex to this precision.
const SimplexTol = 1e-8

// IsSimplex reports x with positive elements summing to 1 within SimplexTol.
func IsSimplex(x []float64) bool {
	s := 0.0
	for _, v := range x {
		if !(v > 0) || math.IsInf(v, 1) {
			return false
		}
		s += v
	}
	return math.Abs(s-1) <= SimplexTol
}

// DirichletLogPDF is the log density of Dirichlet(α) at the simplex x,
// log Γ(Σα) − Σ log Γ(αₖ) + Σ (αₖ − 1) log xₖ, with its partial derivatives
// written into dx (∂/∂xₖ = (αₖ − 1)/xₖ, treating the K elements as free)
// and dalpha (∂/∂αₖ = ψ(Σα) − ψ(αₖ) + log xₖ) when they are not nil. x is
// not checked to be a simplex (the caller knows whether it is).
func DirichletLogPDF(x, alpha, dx, dalpha []float64) float64 {
	sum := 0.0
	for _, a := range alpha {
		sum += a
	}
	lp := lgamma(sum)
	psiSum := 0.0
	if dalpha != nil {
		psiSum = mathext.Digamma(sum)
	}
	for k, a := range alpha {
		lx := math.Log(x[k])
		lp += (a-1)*lx - lgamma(a)
		if dx != nil {
			dx[k] = (a - 1) / x[k]
		}
		if dalpha != nil {
			dalpha[k] = psiSum - mathext.Digamma(a) + lx
		}
	}
	return lp
}

// DirichletRand draws from Dirichlet(α) (normalised gamma draws, gonum's
// distmv.Dirichlet).
func DirichletRand(r *rand.Rand, alpha []float64) []float64 {
	return distmv.NewDirichlet(alpha, r).Rand(nil)
}

// DirichletMoments are the mean αₖ/α₀ and the sd
// √(αₖ(α₀ − αₖ)/(α₀²(α₀ + 1))) of each element.
func DirichletMoments(alpha []float64) (mean, sd []float64) {
	a0 := 0.0
	for _, a := range alpha {
		a0 += a
	}
	mean = make([]float64, len(alpha))
	sd = make([]float64, len(alpha))
	for k, a := range alpha {
		mean[k] = a / a0
		sd[k] = math.Sqrt(a * (a0 - a) / (a0 * a0 * (a0 + 1)))
	}
	return mean, sd
}
