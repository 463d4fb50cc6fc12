package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// VB is the super-Gaussian variational bound on the log marginal
// likelihood (eqs. 10–13), the objective MLM stands for with a
// non-Gaussian likelihood unless another approximation is chosen:
//
//	B = log N(m | 0, K + Γ) + Σ_i [½ log 2πγ_i + c_i(γ_i)]
//
// at its fixed point in γ (FitSites), a lower bound on log P(y). Its
// posterior is that of GP regression on the site means m with noise
// variances Γ.
type VB struct{}

// Fit is the bound at its fixed point with, for needs.Gradient, its
// gradient: γ is at its optimum, so the gradient is that of the outer
// terms at fixed γ, W = ααᵀ − (K + Γ)⁻¹ for the kernel.
func (VB) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	return sitesPosterior(K, y, l, MLM, needs)
}

// sitesPosterior fits the Gaussian sites of FitSites (at z = 0 unless
// kind is MLM) at kernel matrix K and returns the objective there, VB's
// bound for MLM or the joint MAP objective of kind MAP or MKL (without
// MKL's regulariser; K then holds MAP's ε), with W = ααᵀ − (K + Γ)⁻¹ for
// VB, ααᵀ − K⁻¹ for MAP and ααᵀ for MKL (the inner variables are at their
// optimum, so their own derivatives vanish).
func sitesPosterior(K *mat.SymDense, y []float64, l Lik, kind Kind, needs Needs) (*Posterior, error) {
	n := K.SymmetricDim()
	sites, err := FitSites(K, y, l, kind != MLM)
	if err != nil {
		return nil, err
	}
	dl := make([]float64, len(l.Params))
	// C = K + Γ and α = C⁻¹m at the fixed point.
	c := mat.NewSymDense(n, nil)
	c.CopySym(K)
	for i := 0; i < n; i++ {
		c.SetSym(i, i, c.At(i, i)+sites.Gamma[i])
	}
	var ch mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&ch, c, false); !ok {
		return nil, ErrNotPD
	}
	alphaV := mat.NewVecDense(n, nil)
	if err := linalg.IgnoreCondition(ch.SolveVecTo(alphaV, mat.NewVecDense(n, sites.M))); err != nil {
		return nil, err
	}
	a := alphaV.RawVector().Data
	var val float64
	var inv *mat.SymDense // the matrix whose inverse W subtracts
	switch kind {
	case MLM:
		var quad float64
		for i, v := range sites.M {
			quad += v * a[i]
		}
		val = -0.5*quad - 0.5*ch.LogDet() - 0.5*float64(n)*math.Log(2*math.Pi)
		for _, g := range sites.Gamma {
			val += l.siteConst(dl, g)
		}
		if needs.Gradient {
			inv = new(mat.SymDense)
			if err := linalg.IgnoreCondition(ch.InverseTo(inv)); err != nil {
				return nil, err
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
				return nil, ErrNotPD
			}
			val -= 0.5*kc.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi)
			if needs.Gradient {
				inv = new(mat.SymDense)
				if err := linalg.IgnoreCondition(kc.InverseTo(inv)); err != nil {
					return nil, err
				}
			}
		}
	}
	p := &Posterior{LogZ: val, Alpha: a, DLik: dl, Iterations: sites.Iterations, gamma: sites.Gamma, m: sites.M}
	if needs.Gradient {
		p.W = outerMinus(a, inv)
	}
	return p, nil
}
