package dpm

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Prior is the normal–inverse-Wishart base measure: μ | Σ ~ N(Mu0, Σ/Kappa0),
// Σ ~ IW(Psi0, Nu0).
type Prior struct {
	Mu0    []float64
	Kappa0 float64
	Nu0    float64
	Psi0   *mat.SymDense
}

// cluster is the NIW posterior of the points assigned to it: n points,
// κ = κ0 + n, ν = ν0 + n, mean μ and the Cholesky factor of Ψ.
type cluster struct {
	n         int
	kappa, nu float64
	mu        []float64
	chol      mat.Cholesky
	logdet    float64 // log det Ψ
}

// empty is the prior as a cluster with no points.
func empty(p *Prior) *cluster {
	c := &cluster{kappa: p.Kappa0, nu: p.Nu0, mu: append([]float64(nil), p.Mu0...)}
	if !c.chol.Factorize(p.Psi0) {
		panic("dpm: Psi0 is not positive definite") // checked by Fit
	}
	c.logdet = c.chol.LogDet()
	return c
}

// clone copies a cluster (for the kept sweeps).
func (c *cluster) clone() *cluster {
	out := &cluster{n: c.n, kappa: c.kappa, nu: c.nu, mu: append([]float64(nil), c.mu...), logdet: c.logdet}
	out.chol.Clone(&c.chol)
	return out
}

// add moves the posterior to include x: Ψ += κ/(κ+1) δδᵀ with δ = x − μ.
func (c *cluster) add(x, work []float64) bool {
	for j, v := range x {
		work[j] = v - c.mu[j]
	}
	ok := c.chol.SymRankOne(&c.chol, c.kappa/(c.kappa+1), mat.NewVecDense(len(x), work))
	for j, v := range x {
		c.mu[j] = (c.kappa*c.mu[j] + v) / (c.kappa + 1)
	}
	c.kappa++
	c.nu++
	c.n++
	c.logdet = c.chol.LogDet()
	return ok
}

// remove takes x out: the inverse of add. It reports false when the
// downdate lost positive definiteness to rounding (the caller refactors).
func (c *cluster) remove(x, work []float64) bool {
	k := c.kappa - 1
	for j, v := range x {
		c.mu[j] = (c.kappa*c.mu[j] - v) / k
		work[j] = v - c.mu[j]
	}
	ok := c.chol.SymRankOne(&c.chol, -k/c.kappa, mat.NewVecDense(len(x), work))
	c.kappa = k
	c.nu--
	c.n--
	if ok {
		c.logdet = c.chol.LogDet()
	}
	return ok
}

// rebuild refactors the posterior from its member rows of x.
func rebuild(p *Prior, x *mat.Dense, members []int, work []float64) *cluster {
	c := empty(p)
	for _, i := range members {
		if !c.add(x.RawRowView(i), work) {
			c = refactor(p, x, members)
			break
		}
	}
	return c
}

// refactor forms Ψ_n explicitly and factors it: the fallback when rank-one
// updates fail to rounding.
func refactor(p *Prior, x *mat.Dense, members []int) *cluster {
	_, d := x.Dims()
	n := float64(len(members))
	mean := make([]float64, d)
	for _, i := range members {
		for j, v := range x.RawRowView(i) {
			mean[j] += v / n
		}
	}
	psi := mat.NewSymDense(d, nil)
	psi.CopySym(p.Psi0)
	dv := make([]float64, d)
	for _, i := range members {
		for j, v := range x.RawRowView(i) {
			dv[j] = v - mean[j]
		}
		psi.SymRankOne(psi, 1, mat.NewVecDense(d, dv))
	}
	for j := range dv {
		dv[j] = mean[j] - p.Mu0[j]
	}
	psi.SymRankOne(psi, p.Kappa0*n/(p.Kappa0+n), mat.NewVecDense(d, dv))
	c := &cluster{n: len(members), kappa: p.Kappa0 + n, nu: p.Nu0 + n, mu: make([]float64, d)}
	for j := range c.mu {
		c.mu[j] = (p.Kappa0*p.Mu0[j] + n*mean[j]) / c.kappa
	}
	if !c.chol.Factorize(psi) {
		panic("dpm: a cluster's scale matrix is not positive definite") // Ψ0 ≻ 0 and the rest ⪰ 0
	}
	c.logdet = c.chol.LogDet()
	return c
}

// logPred is the log posterior predictive density at x, a multivariate t
// with df = ν − d + 1, location μ and scale Ψ(κ+1)/(κ·df). work has length d.
func (c *cluster) logPred(x, work []float64) float64 {
	d := float64(len(x))
	df := c.nu - d + 1
	for j, v := range x {
		work[j] = v - c.mu[j]
	}
	// Ψ = UᵀU: quad = δᵀΨ⁻¹δ = |U⁻ᵀδ|².
	u := c.chol.RawU().(mat.RawTriangular).RawTriangular()
	blas64.Trsv(blas.Trans, u, blas64.Vector{N: len(x), Inc: 1, Data: work})
	quad := 0.0
	for _, v := range work {
		quad += v * v
	}
	s := (c.kappa + 1) / (c.kappa * df)
	lg1, _ := math.Lgamma((df + d) / 2)
	lg2, _ := math.Lgamma(df / 2)
	return lg1 - lg2 - d/2*math.Log(df*math.Pi) - (d*math.Log(s)+c.logdet)/2 - (df+d)/2*math.Log1p(quad/(s*df))
}
