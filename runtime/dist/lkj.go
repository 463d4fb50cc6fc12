package dist

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// The LKJ distribution (Lewandowski, Kurowicka & Joe 2009) on K×K
// correlation matrices Ω has density ∝ det(Ω)^(η−1). On the Cholesky factor
// L (Ω = LLᵀ, L lower triangular with unit-norm rows), as a density of L's
// strictly lower entries, it is
//
//	log p(L) = Σₖ₌₂..K (K − k + 2η − 2) log Lₖₖ − log c_K(η).
//
// Writing row i of L through its canonical partial correlations zᵢⱼ
// (j < i): Lᵢⱼ = zᵢⱼ √(1 − Σₗ<ⱼ Lᵢₗ²), the zᵢⱼ are independent, zᵢⱼ
// distributed as 2·Beta(βⱼ, βⱼ) − 1 with βⱼ = η + (K − 1 − j)/2. That gives
// both the draws and the normalising constant
//
//	log c_K(η) = Σⱼ₌₁..K−1 (K − j)·(log B(βⱼ, βⱼ) + (2βⱼ − 1) log 2).

// LKJCholeskyLogPDF is log p(L) from L's diagonal diag (Lₖₖ, k = 1..K), with
// ∂/∂Lₖₖ written into ddiag and ∂/∂η returned.
func LKJCholeskyLogPDF(diag []float64, eta float64, ddiag []float64) (lp, deta float64) {
	k := len(diag)
	lp, deta = lkjLogNorm(k, eta)
	lp, deta = -lp, -deta
	for i := 1; i < k; i++ { // row i+1 in 1-based terms
		c := float64(k-(i+1)) + 2*eta - 2
		l := math.Log(diag[i])
		lp += c * l
		deta += 2 * l
		if ddiag != nil {
			ddiag[i] = c / diag[i]
		}
	}
	if ddiag != nil && k > 0 {
		ddiag[0] = 0
	}
	return lp, deta
}

// lkjBeta is βⱼ for column j (1-based) of a K×K factor.
func lkjBeta(k, j int, eta float64) float64 { return eta + float64(k-1-j)/2 }

// lkjLogNorm is log c_K(η) and its derivative in η.
func lkjLogNorm(k int, eta float64) (c, dc float64) {
	for j := 1; j < k; j++ {
		b := lkjBeta(k, j, eta)
		n := float64(k - j)
		lb := 2*lgamma(b) - lgamma(2*b)
		c += n * (lb + (2*b-1)*math.Ln2)
		// d/dβ log B(β, β) = 2ψ(β) − 2ψ(2β); dβ/dη = 1.
		dc += n * (2*mathext.Digamma(b) - 2*mathext.Digamma(2*b) + 2*math.Ln2)
	}
	return c, dc
}

// CholeskyFromCPC fills the K×K lower-triangular factor (row-major, K²
// values) from the canonical partial correlations z, in Stan's order: row
// by row, z₂₁, z₃₁, z₃₂, z₄₁, ...
func CholeskyFromCPC(k int, z []float64) []float64 {
	l := make([]float64, k*k)
	l[0] = 1
	n := 0
	for i := 1; i < k; i++ {
		rem := 1.0 // 1 − Σₗ<ⱼ Lᵢₗ², the squared norm left for the row
		for j := 0; j < i; j++ {
			l[i*k+j] = z[n] * math.Sqrt(rem)
			rem *= 1 - z[n]*z[n]
			n++
		}
		l[i*k+i] = math.Sqrt(rem)
	}
	return l
}

// LKJCholeskyRand draws L (row-major, K×K) from LKJ(η) by drawing the
// canonical partial correlations from their scaled Betas.
func LKJCholeskyRand(r *rand.Rand, k int, eta float64) []float64 {
	z := make([]float64, 0, k*(k-1)/2)
	for i := 1; i < k; i++ {
		for j := 1; j <= i; j++ {
			b := lkjBeta(k, j, eta)
			z = append(z, 2*distuv.Beta{Alpha: b, Beta: b, Src: r}.Rand()-1)
		}
	}
	return CholeskyFromCPC(k, z)
}
