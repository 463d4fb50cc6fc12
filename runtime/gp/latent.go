package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Inner-loop settings: the sites' variances are refitted until no log γ_i
// moves by more than innerTol, at most innerMax times.
const (
	innerTol = 1e-10
	innerMax = 2000
	// gammaMin keeps a site whose residual vanishes (joint MAP with a
	// Laplace likelihood) from having zero variance, relative to the
	// likelihood's scale.
	gammaMin = 1e-12
)

// ErrInner is returned when the sites' variances do not settle.
var ErrInner = errors.New("gp: the variational sites did not converge")

// Sites is the Gaussian approximation the inner loop settles on: site
// variances Gamma and means M, so that the latent function's approximate
// posterior is that of GP regression on M with noise variances Gamma.
type Sites struct {
	Gamma, M []float64
	// Iterations is the number of refits the inner loop took.
	Iterations int
}

// FitSites runs the inner loop for kernel matrix K (with the ε of MAP
// added when z0) and likelihood l: alternately the Gaussian-site posterior
// N(μ, V), μ = K(K + Γ)⁻¹m, V = (K⁻¹ + Γ⁻¹)⁻¹, and each γ_i from the
// second moment of its residual. With z0 the variances z = diag V are left
// out (z = 0), whose fixed point is the joint MAP latent function (Table 2:
// MAP is VB at z = 0); the loop is then iteratively reweighted least
// squares, which converges slowly for the Laplace likelihood (vanishing
// residuals) and the logistic (a linear rate), so those two find the same
// point by a dual active-set method and by Newton's method. Otherwise it is
// the VB bound's fixed point. Each pass costs one Cholesky factor (and one
// inverse for VB).
func FitSites(K *mat.SymDense, y []float64, l Lik, z0 bool) (*Sites, error) {
	n := K.SymmetricDim()
	switch {
	case z0 && l.Kind == Laplace:
		return laplaceMAP(K, y, l.Params[0])
	case z0 && l.Kind == Logit:
		return logitMAP(K, y, l)
	case z0 && l.isCount():
		return countMAP(K, y, l)
	case l.isCount():
		return nil, ErrCountVB
	}
	s := &Sites{Gamma: make([]float64, n), M: make([]float64, n)}
	scale := l.scale()
	for i := range s.Gamma {
		// Start at the bound tight at a residual of one likelihood scale.
		s.Gamma[i] = l.gamma(scale * scale)
	}
	c := mat.NewSymDense(n, nil)
	alpha := mat.NewVecDense(n, nil)
	var inv mat.SymDense
	var ch mat.Cholesky
	prevMu := make([]float64, n)
	for i := range prevMu {
		prevMu[i] = math.NaN()
	}
	for it := 1; it <= innerMax; it++ {
		for i := range s.M {
			s.M[i] = l.target(y[i], s.Gamma[i])
		}
		c.CopySym(K)
		for i := 0; i < n; i++ {
			c.SetSym(i, i, c.At(i, i)+s.Gamma[i])
		}
		if _, ok := linalg.CholeskyJitter(&ch, c, false); !ok {
			return nil, ErrNotPD
		}
		if err := linalg.IgnoreCondition(ch.SolveVecTo(alpha, mat.NewVecDense(n, s.M))); err != nil {
			return nil, err
		}
		if !z0 {
			if err := linalg.IgnoreCondition(ch.InverseTo(&inv)); err != nil {
				return nil, err
			}
		}
		moved, muMoved := 0.0, 0.0
		for i := 0; i < n; i++ {
			g := s.Gamma[i]
			mu := s.M[i] - g*alpha.AtVec(i) // μ = m − Γα
			muMoved = math.Max(muMoved, math.Abs(mu-prevMu[i])/(scale+math.Abs(mu)))
			prevMu[i] = mu
			z := 0.0
			if !z0 {
				z = math.Max(g-g*g*inv.At(i, i), 0)
			}
			next := math.Max(l.gamma(l.second(y[i], mu, z)), gammaMin*scale*scale)
			moved = math.Max(moved, math.Abs(math.Log(next/g)))
			s.Gamma[i] = next
		}
		s.Iterations = it
		// VB's variances settle; at z = 0 a site whose residual vanishes
		// (Laplace) has a variance that keeps shrinking towards gammaMin
		// while the latent function has settled, so MAP watches μ.
		if !z0 && moved <= innerTol || z0 && muMoved <= innerTol {
			for i := range s.M {
				s.M[i] = l.target(y[i], s.Gamma[i])
			}
			return s, nil
		}
	}
	return nil, ErrInner
}

// scale is the likelihood's scale, for the inner loop's start.
func (l Lik) scale() float64 {
	switch l.Kind {
	case Laplace:
		return l.Params[0]
	case StudentT:
		return l.Params[1]
	}
	return 1
}

// NonGaussian returns objective s.Kind for a latent GP with kernel k at the
// rows of x observed through likelihood l (log scale, as Gaussian):
//
//	MLM: the approximate log marginal likelihood of s.Approx (VB's bound
//	     when nil; vb.go, laplace.go, ep.go);
//	MAP: log N(û | 0, K + εI) + Σ_i log P(y_i | û_i);
//	MKL: −½ ûᵀ(K + εI)⁻¹û + Σ_i log P(y_i | û_i) − ½λ Σ_m θ_mᵖ;
//
// with û the joint MAP latent function (mapsolve.go), each one call
// through the Inference contract. grad, when not nil, receives the
// derivatives with respect to k's hyperparameters, then l's parameters:
// the contraction of the Posterior's W, then its DLik (and the MKL
// regulariser's derivative).
func NonGaussian(s Settings, k kernels.Kernel, x *mat.Dense, y []float64, l Lik, grad []float64) (float64, error) {
	n, _ := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if err := l.check(y); err != nil {
		return 0, err
	}
	inf, err := s.Inference()
	if err != nil {
		return 0, err
	}
	// K and the gradient's weights W are scratch (squares): no
	// approximation's Posterior keeps K, and W is read by ContractSym
	// alone.
	var K *mat.SymDense
	dist := s.Dists.of(x)
	if n > 0 {
		K = mat.NewSymDense(n, square(n))
		defer release(K.RawSymmetric().Data)
		if dist == nil || !gramDist(K, k, x, dist) {
			err = kernels.GramInto(K, k, x, 0)
		}
	} else {
		K, err = kernels.Gram(k, x)
	}
	if err != nil {
		return 0, err
	}
	for _, v := range K.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, ErrNonFinite
		}
	}
	p, err := inf.Fit(K, y, l, Needs{Gradient: grad != nil})
	if err != nil {
		return 0, err
	}
	val := p.LogZ
	h := k.Hyper(nil)
	if s.Kind == MKL {
		for _, i := range s.Weights {
			val -= 0.5 * s.Lambda * math.Pow(h[i], s.P)
		}
	}
	if grad == nil {
		return val, nil
	}
	clear(grad)
	nh := k.NumHyper()
	contractSymDist(grad[:nh], k, x, p.W, dist)
	release(p.W.RawSymmetric().Data)
	copy(grad[nh:], p.DLik)
	if s.Kind == MKL {
		for _, i := range s.Weights {
			grad[i] -= 0.5 * s.Lambda * s.P * math.Pow(h[i], s.P-1)
		}
	}
	return val, nil
}

// Inference is the Inference objective s.Kind makes one call through for
// a non-Gaussian likelihood: s.Approx (VB when nil) for the marginal
// likelihood, the joint MAP solve for MAP and MKL.
func (s Settings) Inference() (Inference, error) {
	switch s.Kind {
	case MLM:
		if s.Approx == nil {
			return VB{}, nil
		}
		return s.Approx, nil
	case MAP, MKL:
		return jointMAP{kind: s.Kind}, nil
	case RR:
		return nil, fmt.Errorf("gp: the rr objective is for Gaussian noise (eq. 9); use mkl")
	}
	return nil, fmt.Errorf("gp: unknown objective %d", s.Kind)
}
