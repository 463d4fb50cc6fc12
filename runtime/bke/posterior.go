package bke

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// Posterior returns the posterior predictive mean and covariance of the
// mean embedding μ_θ at the rows of at (p×D), given the empirical embedding
// at the landmarks. It is the GP regression of eqs. (7)–(8) of Flaxman et
// al. (2016) with the landmarks z as the observation (inducing) points in
// place of all n data points, which keeps it O(m³ + nm + p²m):
//
//	mean = R_*ᵀ A⁻¹ μ̂(z),   cov = R_** − R_*ᵀ A⁻¹ R_*,
//
// with μ̂(z_l) = (1/n) Σ_i k(x_i, z_l), A = R_zz + (τ²/n) I, R_* =
// [r(z_l, a_j)] (m×p) and R_** = [r(a_j, a_k)], r the prior covariance.
//
// Replacing r by k itself (and z by the data) turns the mean into the
// spectral kernel mean shrinkage estimator of Muandet et al. (2013, §4.2 of
// the paper), K_*ᵀ(K + nλI)⁻¹[μ̂(x_i)], with regulariser λ = τ²/n² (the
// noise variance τ²/n equals nλ).
func (md *Model) Posterior(h Hyper, at *mat.Dense) (mean []float64, cov *mat.SymDense, err error) {
	p, err := md.prepare(h, true)
	if err != nil {
		return nil, nil, err
	}
	if err := md.checkPoints(at); err != nil {
		return nil, nil, err
	}
	res, err := md.run(p, false, false)
	if err != nil {
		return nil, nil, err
	}
	ls, err := md.landmarks(p, p.tau2/float64(md.n), false, nil)
	if err != nil {
		return nil, nil, err
	}
	mu := mat.NewVecDense(md.m, nil)
	for l, v := range res.mu {
		mu.SetVec(l, p.amp*v)
	}
	return linalg.GPPredict(md.prior(p), ls.chol(), md.z, md.dim, mu, at)
}

// DrawPosterior writes into dst (length: the rows of at) one draw of μ_θ
// at the rows of at from the distribution Posterior returns, using rng: the
// mean plus Lξ, LLᵀ the covariance (with the jitter of factorJitter when it
// is not numerically positive definite, as on a fine grid) and ξ standard
// normal. When mean is not nil it also receives the posterior mean.
func (md *Model) DrawPosterior(dst, mean []float64, h Hyper, at *mat.Dense, rng *rand.Rand) error {
	if at != nil {
		if r, _ := at.Dims(); len(dst) != r {
			panic(fmt.Sprintf("bke: DrawPosterior: len(dst) = %d for %d points", len(dst), r))
		}
	}
	mu, cov, err := md.Posterior(h, at)
	if err != nil {
		return err
	}
	copy(mean, mu)
	chol, _, err := factorJitter(cov, "the posterior covariance of the embedding")
	if err != nil {
		return err
	}
	var u mat.TriDense
	chol.UTo(&u)
	xi := mat.NewVecDense(len(mu), nil)
	for i := range mu {
		xi.SetVec(i, rng.NormFloat64())
	}
	var draw mat.VecDense
	draw.MulVec(u.T(), xi)
	for i := range dst {
		dst[i] = mu[i] + draw.AtVec(i)
	}
	return nil
}

// checkPoints validates evaluation points.
func (md *Model) checkPoints(at *mat.Dense) error {
	if at == nil || at.IsEmpty() {
		return fmt.Errorf("bke: no evaluation points")
	}
	r, c := at.Dims()
	if c != md.dim {
		return fmt.Errorf("bke: the evaluation points are %d×%d but the data is %d×%d: they need the same number of columns", r, c, md.n, md.dim)
	}
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := at.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("bke: evaluation point row %d, column %d is %v: values must be finite", i+1, j+1, v)
			}
		}
	}
	return nil
}
