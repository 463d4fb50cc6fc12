package gp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// VB is the super-Gaussian variational bound on the log marginal
// likelihood (eqs. 10–13), the objective MLM stands for with a
// non-Gaussian likelihood.
const VB Kind = RR + 1

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
//	VB (and MLM): the bound B = log N(m | 0, K + Γ) + Σ_i [½ log 2πγ_i + c_i(γ_i)]
//	              at its fixed point in γ — a lower bound on log P(y);
//	MAP:          log N(û | 0, K + εI) + Σ_i log P(y_i | û_i);
//	MKL:          −½ ûᵀ(K + εI)⁻¹û + Σ_i log P(y_i | û_i) − ½λ Σ_m θ_mᵖ;
//	LaplaceApprox: log P(y | f̂) − ½ f̂ᵀK⁻¹f̂ − ½ log|I + KW| (laplace.go);
//	EP:           expectation propagation's log marginal (ep.go);
//
// with û the joint MAP latent function. grad, when not nil, receives the
// derivatives with respect to k's hyperparameters, then l's parameters:
// the inner variables (γ or û) are at their optimum, so their own
// derivatives vanish and the gradient is that of the outer terms at fixed
// inner variables (for the kernel, ½ tr(W ∂K/∂h) with W = ααᵀ − (K + Γ)⁻¹
// for VB, ααᵀ − (K + εI)⁻¹ for MAP and ααᵀ for MKL).
func NonGaussian(s Settings, k kernels.Kernel, x *mat.Dense, y []float64, l Lik, grad []float64) (float64, error) {
	n, _ := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if err := l.check(y); err != nil {
		return 0, err
	}
	K, err := kernels.Gram(k, x)
	if err != nil {
		return 0, err
	}
	for _, v := range K.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, ErrNonFinite
		}
	}
	kind := s.Kind
	if kind == MLM {
		kind = VB
	}
	if kind == RR {
		return 0, fmt.Errorf("gp: the rr objective is for Gaussian noise (eq. 9); use mkl")
	}
	if kind == LaplaceApprox {
		if grad != nil {
			clear(grad)
		}
		return laplaceObjective(K, y, l, grad, k.NumHyper(), func(dst []float64, w *mat.SymDense) { Contract(dst, k, x, w) })
	}
	if kind == EP {
		if grad != nil {
			clear(grad)
		}
		return epObjective(K, y, l, grad, k.NumHyper(), func(dst []float64, w *mat.SymDense) { Contract(dst, k, x, w) })
	}
	if kind != VB {
		raw := K.RawSymmetric()
		for i := 0; i < n; i++ {
			raw.Data[i*raw.Stride+i] += MapJitter
		}
	}
	sites, err := FitSites(K, y, l, kind != VB)
	if err != nil {
		return 0, err
	}
	nh := k.NumHyper()
	var dl []float64
	if grad != nil {
		clear(grad)
		dl = grad[nh:]
	} else {
		dl = make([]float64, len(l.Params))
	}
	// C = K + Γ and α = C⁻¹m at the fixed point.
	c := mat.NewSymDense(n, nil)
	c.CopySym(K)
	for i := 0; i < n; i++ {
		c.SetSym(i, i, c.At(i, i)+sites.Gamma[i])
	}
	var ch mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&ch, c, false); !ok {
		return 0, ErrNotPD
	}
	alphaV := mat.NewVecDense(n, nil)
	if err := linalg.IgnoreCondition(ch.SolveVecTo(alphaV, mat.NewVecDense(n, sites.M))); err != nil {
		return 0, err
	}
	a := alphaV.RawVector().Data
	var val float64
	var inv *mat.SymDense // the matrix whose inverse W subtracts
	h := k.Hyper(nil)
	switch kind {
	case VB:
		var quad float64
		for i, v := range sites.M {
			quad += v * a[i]
		}
		val = -0.5*quad - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
		for _, g := range sites.Gamma {
			val += l.siteConst(dl, g)
		}
		if grad != nil {
			inv = new(mat.SymDense)
			if err := linalg.IgnoreCondition(ch.InverseTo(inv)); err != nil {
				return 0, err
			}
		}
	case MAP, MKL:
		// û = m − Γα, and (K + εI)⁻¹û = α.
		var quad float64
		for i := range a {
			u := sites.M[i] - sites.Gamma[i]*a[i]
			quad += u * a[i]
			val += l.logProb(dl, y[i], u)
		}
		val -= 0.5 * quad
		if kind == MAP {
			var kc mat.Cholesky
			if _, ok := linalg.CholeskyJitter(&kc, K, false); !ok {
				return 0, ErrNotPD
			}
			val -= 0.5*kc.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi)
			if grad != nil {
				inv = new(mat.SymDense)
				if err := linalg.IgnoreCondition(kc.InverseTo(inv)); err != nil {
					return 0, err
				}
			}
		} else {
			for _, i := range s.Weights {
				val -= 0.5 * s.Lambda * math.Pow(h[i], s.P)
			}
		}
	}
	if grad == nil {
		return val, nil
	}
	w := mat.NewSymDense(n, nil)
	raw := w.RawSymmetric()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride:]
		for j := i; j < n; j++ {
			row[j] = a[i] * a[j]
			if inv != nil {
				row[j] -= inv.At(i, j)
			}
		}
	}
	Contract(grad[:nh], k, x, w)
	if kind == MKL {
		for _, i := range s.Weights {
			grad[i] -= 0.5 * s.Lambda * s.P * math.Pow(h[i], s.P-1)
		}
	}
	return val, nil
}
