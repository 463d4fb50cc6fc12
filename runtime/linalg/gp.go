package linalg

import (
	"errors"

	"gonum.org/v1/gonum/mat"
)

// Covariance is a covariance function k(x, y); every kernels.Kernel is one.
type Covariance interface {
	Eval(x, y []float64) float64
}

// GPPredict returns the Gaussian process predictive mean and covariance at
// the rows of at,
//
//	mean = K_*ᵀ A⁻¹ y,   cov = K_** − K_*ᵀ A⁻¹ K_*,
//
// for covariance k, observation points obs (row-major, dim columns) with
// observations y, and chol the Cholesky factor of A = K_obs + noise·I (with
// whatever jitter factored it). K_* = [k(obs_l, at_j)], K_** = [k(at_j, at_k)].
func GPPredict(k Covariance, chol *mat.Cholesky, obs []float64, dim int, y *mat.VecDense, at *mat.Dense) ([]float64, *mat.SymDense, error) {
	m := len(obs) / dim
	p, _ := at.Dims()
	ks := mat.NewDense(m, p, nil)
	for l := 0; l < m; l++ {
		for j := 0; j < p; j++ {
			ks.Set(l, j, k.Eval(obs[l*dim:(l+1)*dim], at.RawRowView(j)))
		}
	}
	alpha := mat.NewVecDense(m, nil)
	if err := IgnoreCondition(chol.SolveVecTo(alpha, y)); err != nil {
		return nil, nil, err
	}
	var mean mat.VecDense
	mean.MulVec(ks.T(), alpha)

	// cov = K_** − WᵀW with W = U⁻ᵀ K_*, A = UᵀU.
	var w mat.Dense
	if err := IgnoreCondition(w.Solve(chol.RawU().T(), ks)); err != nil {
		return nil, nil, err
	}
	kss := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			kss.SetSym(i, j, k.Eval(at.RawRowView(i), at.RawRowView(j)))
		}
	}
	cov := mat.NewSymDense(p, nil)
	cov.SymRankK(kss, -1, w.T())
	return mean.RawVector().Data, cov, nil
}

// IgnoreCondition drops gonum's warning that a well-defined solve was
// ill-conditioned: the factorisation is backward stable, and the jitter
// policy decides what is too singular to use.
func IgnoreCondition(err error) error {
	var c mat.Condition
	if errors.As(err, &c) {
		return nil
	}
	return err
}
