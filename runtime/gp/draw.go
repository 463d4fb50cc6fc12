package gp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// Draws of the latent function at the training inputs, for forward
// sampling (prior_predictive, ppc, sbc in lang/model): the GP prior
// N(0, K), the exact posterior of Gaussian-noise regression, and the
// Gaussian q(f) an Inference settles on. Each is a mean and a full n×n
// covariance at the inputs, and one sampler draws from it.

// DrawGaussian draws f = mean + Lz, z standard normal from r, with L the
// Cholesky factor of cov taken as linalg.CholeskyJitter does for the
// marginal likelihood (cov itself, then JitterStart × its mean diagonal,
// ten times more each time, up to JitterMax × it, so at most 10⁻⁴ of the
// mean variance). It returns the jitter that was added (0 if none). A
// covariance that no jitter of the schedule makes positive definite is
// ErrNotPD.
func DrawGaussian(r *rand.Rand, mean []float64, cov *mat.SymDense) (f []float64, jitter float64, err error) {
	n := cov.SymmetricDim()
	if len(mean) != n {
		panic(fmt.Sprintf("gp: DrawGaussian with %d means for a %d×%d covariance", len(mean), n, n))
	}
	var ch mat.Cholesky
	jit, ok := linalg.CholeskyJitter(&ch, cov, false)
	if !ok {
		return nil, 0, ErrNotPD
	}
	var l mat.TriDense
	ch.LTo(&l)
	z := make([]float64, n)
	for i := range z {
		z[i] = r.NormFloat64()
	}
	f = make([]float64, n)
	raw := l.RawTriangular()
	for i := range f {
		row := raw.Data[i*raw.Stride : i*raw.Stride+i+1]
		s := mean[i]
		for j, v := range row {
			s += v * z[j]
		}
		f[i] = s
	}
	return f, jit, nil
}

// SitesJoint is the posterior of f ~ N(0, K) at the inputs given Gaussian
// observations y with variances noise (one, or one per observation): with
// C = K + diag(noise),
//
//	mean = K C⁻¹ y,  cov = K − K C⁻¹ K
//
// (Rasmussen and Williams 2006, eqs. 2.23–2.24 at the training inputs).
// It is exact GP regression for noise σ², and the q(f) of Gaussian sites
// (VB, the joint MAP's sites). C is factored with linalg.CholeskyJitter's
// jitter, as Factor does.
func SitesJoint(K *mat.SymDense, y, noise []float64) (mean []float64, cov *mat.SymDense, err error) {
	n := K.SymmetricDim()
	if len(y) != n {
		return nil, nil, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	c := mat.NewSymDense(n, nil)
	c.CopySym(K)
	for i := range n {
		c.SetSym(i, i, c.At(i, i)+noise[min(i, len(noise)-1)])
	}
	var ch mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&ch, c, false); !ok {
		return nil, nil, ErrNotPD
	}
	// V = L⁻¹K, so K C⁻¹ K = VᵀV; a = C⁻¹y, mean = K a.
	var l mat.TriDense
	ch.LTo(&l)
	var v mat.Dense
	if err := v.Solve(&l, K); err != nil {
		if err := linalg.IgnoreCondition(err); err != nil {
			return nil, nil, err
		}
	}
	var a mat.VecDense
	if err := ch.SolveVecTo(&a, mat.NewVecDense(n, y)); err != nil {
		if err := linalg.IgnoreCondition(err); err != nil {
			return nil, nil, err
		}
	}
	var m mat.VecDense
	m.MulVec(K, &a)
	var vtv mat.SymDense
	vtv.SymOuterK(1, v.T())
	cov = mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			cov.SetSym(i, j, K.At(i, j)-vtv.At(i, j))
		}
	}
	return m.RawVector().Data, cov, nil
}

// Joint is the Gaussian q(f) of the posterior at the inputs it was fitted
// at, K their Gram matrix, from a Fit that asked for Needs.Predictive:
// for Gaussian sites (VB, joint MAP) SitesJoint on the site means and
// variances; otherwise mean Kα and covariance K − KRK (Laplace's
// (K⁻¹ + W)⁻¹, EP's (K⁻¹ + T̃)⁻¹).
func (p *Posterior) Joint(K *mat.SymDense) (mean []float64, cov *mat.SymDense, err error) {
	if p.gamma != nil {
		return SitesJoint(K, p.m, p.gamma)
	}
	if p.r == nil {
		return nil, nil, fmt.Errorf("gp: the posterior was fitted without its predictive")
	}
	n := K.SymmetricDim()
	var mv mat.VecDense
	mv.MulVec(K, mat.NewVecDense(n, p.Alpha))
	// K·R·K by two DGEMMs on full storage (gonum multiplies two SymDense
	// element by element through At).
	krk := sandwich(K, p.r)
	cov = mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			cov.SetSym(i, j, K.At(i, j)-0.5*(krk[i*n+j]+krk[j*n+i]))
		}
	}
	for i := range n {
		if math.IsNaN(mv.AtVec(i)) {
			return nil, nil, ErrNonFinite
		}
	}
	return mv.RawVector().Data, cov, nil
}
