package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// An Inference settles a Gaussian approximation q(f) to the posterior of a
// latent f ~ GP(0, K) observed through a non-Gaussian likelihood, and the
// approximate log marginal likelihood (or its bound) that comes with it:
// VB (vb.go), LaplaceApprox (laplace.go), EP (ep.go), and the joint MAP
// solve behind the MAP and MKL objectives (mapsolve.go). NonGaussian and
// the predictive each make one call through it, as gonum's optimize.Method
// is one contract for its minimisers; approx.go's table names them.
//
// Multi-class Laplace (multiclass.go) is a sibling rather than an
// implementation: its latent vector has C values per input, its
// observations are labels rather than a y through a Lik, and its
// posterior covariance has C × C blocks per point, so neither the
// arguments nor a Posterior with one mean and one variance per input fit
// it. It shares the Newton ascent (newton.go) instead.
type Inference interface {
	// Fit settles the approximation at kernel matrix K (which it does not
	// modify) for observations y through l, computing what needs asks
	// for beyond the value.
	Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error)
}

// Needs say what a Fit computes beside the log marginal likelihood.
type Needs struct {
	// Gradient asks for Posterior.W and Posterior.DLik.
	Gradient bool
	// Predictive asks for what Posterior.Predict reads.
	Predictive bool
}

// Posterior is what every Inference returns: the approximate log marginal
// likelihood, what the gradient contraction needs, and the latent
// function's Gaussian posterior for the predictive, in one shape.
type Posterior struct {
	// LogZ is the approximate log marginal likelihood, or its bound (for
	// the joint MAP solve, the objective without the MKL regulariser).
	LogZ float64
	// Alpha gives the posterior mean at new inputs, k*ᵀα.
	Alpha []float64
	// W, with Needs.Gradient, is the symmetric matrix (upper triangle)
	// with ∂LogZ/∂h = ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h at the fitted approximation: what
	// Contract takes.
	W *mat.SymDense
	// DLik are the derivatives of LogZ with respect to l's parameters.
	DLik []float64
	// Iterations are the inner loop's refits, Newton steps or sweeps.
	Iterations int

	// The predictive variance at new inputs is k** − k*ᵀRk* with r, or,
	// for Gaussian sites (VB and joint MAP), that of GP regression on the
	// site means m with noise variances gamma, through the factor of
	// K + Γ as linalg.GPPredict computes it.
	r        *mat.SymDense
	gamma, m []float64
}

// Predict is the posterior of the latent function at the rows of xnew,
// its mean and variance, for the kernel k and inputs x the posterior was
// fitted at (its Fit asked for Needs.Predictive).
func (p *Posterior) Predict(k kernels.Kernel, x, xnew *mat.Dense) (mean, fvar []float64, err error) {
	if p.gamma != nil {
		return SitesPredict(k, x, p.m, p.gamma, xnew)
	}
	if p.r == nil {
		return nil, nil, fmt.Errorf("gp: the posterior was fitted without its predictive")
	}
	ks, err := kernels.Cross(k, xnew, x)
	if err != nil {
		return nil, nil, err
	}
	m, _ := xnew.Dims()
	mv := mat.NewVecDense(m, nil)
	mv.MulVec(ks, mat.NewVecDense(len(p.Alpha), p.Alpha))
	kr := mulSym(ks, p.r)
	fvar = make([]float64, m)
	for i := range fvar {
		row := xnew.RawRowView(i)
		kss := k.Eval(row, row)
		fvar[i] = math.Max(kss-mat.Dot(kr.RowView(i), ks.RowView(i)), 0)
	}
	return mv.RawVector().Data, fvar, nil
}

// SitesPredict is the GP posterior of f at xnew given Gaussian
// observations y with variances noise (one, or one per observation): the
// shared predictive linalg.GPPredict on the factor of K + diag(noise) —
// exact regression, and the predictive of Gaussian sites.
func SitesPredict(k kernels.Kernel, x *mat.Dense, y, noise []float64, xnew *mat.Dense) (mean, fvar []float64, err error) {
	ch, _, _, err := Factor(k, x, noise)
	if err != nil {
		return nil, nil, fmt.Errorf("gp: %v (kernel %s)", err, k)
	}
	_, d := x.Dims()
	mean, cov, err := linalg.GPPredict(k, ch, linalg.RowMajor(x), d, mat.NewVecDense(len(y), y), xnew)
	if err != nil {
		return nil, nil, err
	}
	fvar = make([]float64, len(mean))
	for i := range fvar {
		fvar[i] = math.Max(cov.At(i, i), 0)
	}
	return mean, fvar, nil
}

// outerMinus is the symmetric matrix ααᵀ − inv (ααᵀ when inv is nil),
// upper triangle: the W of a Gaussian objective's gradient, with inv the
// inverse of the covariance whose log-determinant the objective holds.
func outerMinus(a []float64, inv *mat.SymDense) *mat.SymDense {
	n := len(a)
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
	return w
}
