package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// Leave-one-out of a latent GP observed through a non-Gaussian likelihood
// (Vehtari, Mononen, Tolvanen, Sivula and Winther 2016, "Bayesian
// leave-one-out cross-validation approximations for Gaussian latent
// variable models", JMLR 17:103). Each approximation here is the GP prior
// times one Gaussian site per observation, q(f) ∝ N(f | 0, K) Πᵢ t̃ᵢ(fᵢ);
// dividing q's marginal of fᵢ by site i gives the cavity q₋ᵢ(fᵢ) =
// N(μ₋ᵢ, σ²₋ᵢ), the approximation's posterior of fᵢ without observation i
// (the other sites held), and the LOO predictive density is the 1-D
// integral
//
//	log p(yᵢ | y₋ᵢ, θ) ≈ log ∫ p(yᵢ | fᵢ) N(fᵢ | μ₋ᵢ, σ²₋ᵢ) dfᵢ,
//
// by the composite Simpson rule of EP's tilted moments (Lik.tilted). The
// sites are: EP's own (the paper's EP-LOO: the cavities EP computes);
// Laplace's, precision Wᵢ = −∂²log p(yᵢ | f̂ᵢ) and natural mean
// Wᵢf̂ᵢ + ∂log p(yᵢ | f̂ᵢ), whose cavity is σ²₋ᵢ = (1/Σᵢᵢ − Wᵢ)⁻¹,
// μ₋ᵢ = f̂ᵢ − σ²₋ᵢ ∂log p(yᵢ | f̂ᵢ) (the paper's LA-LOO, §3.2); and VB's
// Gaussian sites N(mᵢ | fᵢ, γᵢ), whose cavity is GP regression's closed
// form (Rasmussen and Williams 2006, eq. 5.12) with the site's variance
// taken off: μ₋ᵢ = mᵢ − [C⁻¹m]ᵢ/[C⁻¹]ᵢᵢ, σ²₋ᵢ = 1/[C⁻¹]ᵢᵢ − γᵢ,
// C = K + Γ. One fit and one inverse serve all n points instead of n
// refits.

// Cavities are the LOO cavities of an approximation: Mean[i] and Var[i]
// are the mean and variance of q₋ᵢ(fᵢ).
type Cavities struct {
	Mean, Var []float64
}

// cavitySource is an Inference whose q(f) is the prior times Gaussian
// sites, so that removing a site gives each point's cavity.
type cavitySource interface {
	cavities(K *mat.SymDense, y []float64, l Lik) (*Cavities, error)
}

// LatentCavities fits inf at kernel matrix K for observations y through l
// and returns its LOO cavities; an Inference without Gaussian sites (the
// joint MAP solve) is refused.
func LatentCavities(inf Inference, K *mat.SymDense, y []float64, l Lik) (*Cavities, error) {
	cs, ok := inf.(cavitySource)
	if !ok {
		return nil, fmt.Errorf("gp: %T has no Gaussian sites to leave out", inf)
	}
	if err := l.check(y); err != nil {
		return nil, err
	}
	return cs.cavities(K, y, l)
}

// LatentLOO returns each observation's approximate leave-one-out log
// predictive density log ∫ p(yᵢ | fᵢ) q₋ᵢ(fᵢ) dfᵢ under the approximation
// inf (EP, LaplaceApprox or VB) at kernel matrix K, for observations y
// through l (logistic labels in {−1, 1}).
func LatentLOO(inf Inference, K *mat.SymDense, y []float64, l Lik) ([]float64, error) {
	c, err := LatentCavities(inf, K, y, l)
	if err != nil {
		return nil, err
	}
	return c.LogPredictive(y, l), nil
}

// LogPredictive is log ∫ p(yᵢ | fᵢ) N(fᵢ | Mean[i], Var[i]) dfᵢ for each
// observation, by the tilted integral's Simpson rule.
func (c *Cavities) LogPredictive(y []float64, l Lik) []float64 {
	out := make([]float64, len(y))
	for i := range out {
		out[i], _, _ = l.tilted(nil, y[i], c.Mean[i], c.Var[i])
	}
	return out
}

// newCavities checks that every cavity is a proper Gaussian.
func newCavities(mean, vr []float64, what string) (*Cavities, error) {
	for i, v := range vr {
		if !(v > 0) || math.IsInf(v, 0) || math.IsNaN(mean[i]) {
			return nil, fmt.Errorf("gp: the cavity of observation %d under %s is not a proper Gaussian (variance %g)", i+1, what, v)
		}
	}
	return &Cavities{Mean: mean, Var: vr}, nil
}

// cavities are EP's own: τ₋ᵢ = 1/Σᵢᵢ − τ̃ᵢ, ν₋ᵢ = μᵢ/Σᵢᵢ − ν̃ᵢ at the
// fixed point.
func (EP) cavities(K *mat.SymDense, y []float64, l Lik) (*Cavities, error) {
	s, err := FitEP(K, y, l)
	if err != nil {
		return nil, err
	}
	n := len(y)
	mean, vr := make([]float64, n), make([]float64, n)
	for i := range mean {
		tauC := 1/s.Var[i] - s.Tau[i]
		nuC := s.Mu[i]/s.Var[i] - s.Nu[i]
		mean[i], vr[i] = nuC/tauC, 1/tauC
	}
	return newCavities(mean, vr, "EP")
}

// cavities are Laplace's: the site of observation i is the second-order
// expansion of log p(yᵢ | fᵢ) at the mode, precision Wᵢ and natural mean
// Wᵢf̂ᵢ + gᵢ (gᵢ = ∂log p/∂fᵢ at f̂ᵢ), so its cavity has precision
// 1/Σᵢᵢ − Wᵢ and mean f̂ᵢ − gᵢ/(1/Σᵢᵢ − Wᵢ); Σ = K − KRK,
// R = W(I + KW)⁻¹.
func (LaplaceApprox) cavities(K *mat.SymDense, y []float64, l Lik) (*Cavities, error) {
	n := K.SymmetricDim()
	f, _, _, err := LaplaceMode(K, y, l)
	if err != nil {
		return nil, err
	}
	w := make([]float64, n)
	g := make([]float64, n)
	for i := range f {
		_, g1, g2, _ := l.derivs(y[i], f[i])
		w[i], g[i] = -g2, g1
	}
	_, R, err := laplaceDet(K, w, true)
	if err != nil {
		return nil, err
	}
	// diag(KRK) by one DGEMM on full storage (gonum multiplies two
	// SymDense element by element through At).
	krk := diagSandwich(K, R)
	mean, vr := make([]float64, n), make([]float64, n)
	for i := range mean {
		sii := K.At(i, i) - krk[i]
		prec := 1/sii - w[i]
		vr[i] = 1 / prec
		mean[i] = f[i] - g[i]*vr[i]
	}
	return newCavities(mean, vr, "Laplace's approximation")
}

// cavities are VB's: q(f) is GP regression on the site means m with noise
// variances Γ, so each cavity is that regression's LOO predictive of mᵢ
// (R&W eq. 5.12) without the site's own variance.
func (VB) cavities(K *mat.SymDense, y []float64, l Lik) (*Cavities, error) {
	n := K.SymmetricDim()
	sites, err := FitSites(K, y, l, false)
	if err != nil {
		return nil, err
	}
	c := mat.NewSymDense(n, nil)
	c.CopySym(K)
	for i := 0; i < n; i++ {
		c.SetSym(i, i, c.At(i, i)+sites.Gamma[i])
	}
	var ch mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&ch, c, false); !ok {
		return nil, ErrNotPD
	}
	var inv mat.SymDense
	if err := linalg.IgnoreCondition(ch.InverseTo(&inv)); err != nil {
		return nil, err
	}
	alpha := mat.NewVecDense(n, nil)
	alpha.MulVec(&inv, mat.NewVecDense(n, sites.M))
	mean, vr := make([]float64, n), make([]float64, n)
	for i := range mean {
		d := inv.At(i, i)
		mean[i] = sites.M[i] - alpha.AtVec(i)/d
		vr[i] = 1/d - sites.Gamma[i]
	}
	return newCavities(mean, vr, "VB")
}
