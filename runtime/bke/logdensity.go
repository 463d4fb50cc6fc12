package bke

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// landmarkSystem is A = R + (τ²/n) I on the landmarks, factorised, with
// R's derivatives when a gradient is wanted.
type landmarkSystem struct {
	r    *mat.SymDense
	dr   [][]float64 // per lengthscale p, ∂R/∂ℓ_p as m×m row-major
	chol *mat.Cholesky
}

// landmarks builds R_zz from the prior kernel and factorises A = R + nugget·I.
func (md *Model) landmarks(p *params, nugget float64, grad bool) (*landmarkSystem, error) {
	m, np := md.m, len(p.ell)
	rk := md.prior(p)
	ls := &landmarkSystem{r: mat.NewSymDense(m, nil)}
	a := mat.NewSymDense(m, nil)
	var gh []float64
	if grad {
		gh = make([]float64, rk.NumHyper())
		ls.dr = make([][]float64, np)
		for k := range ls.dr {
			ls.dr[k] = make([]float64, m*m)
		}
	}
	for j := 0; j < m; j++ {
		for k := j; k < m; k++ {
			var r float64
			if grad {
				r = rk.GradHyper(gh, md.zrow(j), md.zrow(k))
				for q := 0; q < np; q++ {
					ls.dr[q][j*m+k] = gh[1+q]
					ls.dr[q][k*m+j] = gh[1+q]
				}
			} else {
				r = rk.Eval(md.zrow(j), md.zrow(k))
			}
			ls.r.SetSym(j, k, r)
			if j == k {
				r += nugget
			}
			a.SetSym(j, k, r)
		}
	}
	var err error
	ls.chol, _, err = factorJitter(a, "the landmark matrix R + (tau2/n) I")
	if err != nil {
		return nil, err
	}
	return ls, nil
}

// LogDensity returns the log marginal pseudolikelihood log p(x | θ, τ²) at
// h and, when g is not nil, writes its gradient into g (g.Ell is resized to
// len(h.Ell) if needed). It is safe for concurrent use.
//
// With K_il = k(x_i, z_l) (n×m), μ̂ = Kᵀ1/n, R = [r(z_j, z_l)] and
// A = R + (τ²/n) I, the Derived variant is (Flaxman et al. 2016, eq. 15 and
// appendix A.4; MATH.md §1)
//
//	log p = −½ [ log|A| + μ̂ᵀA⁻¹μ̂ + Σ_il (K_il − μ̂_l)²/τ² + m log n
//	             + m(n−1) log τ² + mn log 2π ] + Σ_i log γ(x_i),
//
// which equals log N(vec K; 0, 1ₙ1ₙᵀ ⊗ R + τ² I_mn) + Σ_i log γ(x_i), with
// log γ(x) = ½ log det(J(x)ᵀJ(x)), J_ld = ∂k(x, z_l)/∂x_d. The centred sum
// Σ_il (K_il − μ̂_l)² stands for ‖K‖_F² − n‖μ̂‖², which cancels
// catastrophically at large ℓ. The cost is O(m³ + nmD²) for the value and
// O(m³ + nmD³) with the gradient; memory is O(m²D + (n/512 + W) mD) for W
// workers. The differences x_i − z_l are recomputed in the pass rather than
// stored (O(nmD) memory): loading them was not measurably faster.
//
// The Published variant (D = 1) is what the authors' Stan program
// (appendix B) computes, with its normalised prior and amplitude 1 when
// Options and Hyper keep their defaults:
//
//	log p = −½ [ log|A| + m log n + m(n−1) log τ² + ‖K‖_F²/τ² ]
//	        + Σ_i log(½ Σ_l K_il² (x_i − z_l)²/ℓ⁴).
//
// It differs from Derived in three ways. Their eigenvalue weights land on
// the wrong entries of the rotated K (the n index runs fastest in one
// vector, the m index in the other), so the quadratic form loses the
// mean-embedding term μ̂ᵀA⁻¹μ̂ and keeps ‖K‖_F²/τ²; this leaves out m
// misplaced weights on entries of the centred part, whose values depend on
// the eigensolver's basis for the null space of 1ₙ1ₙᵀ (in checks with
// n = 799, m = 20 and n = 101, m = 7 they moved the program's value by 0.003
// to 0.1; when m divides n they all fall on R's smallest eigenvalue and are
// negligible). Their Jacobian is log(½ Σ J) where the derivation gives
// ½ log Σ J. And it has no −½ mn log 2π. Their Gamma(1, 1) priors are left
// to the model.
//
// When A is not numerically positive definite a small jitter is added to its
// diagonal (see factorJitter) and the density and gradient are those of the
// jittered matrix. A data point whose Jacobian would underflow or cancel is
// handled in log space (see cauchyBinet); an error names a row where even
// that is impossible.
func (md *Model) LogDensity(h Hyper, g *Grad) (float64, error) {
	p, err := md.prepare(h, true)
	if err != nil {
		return 0, err
	}
	grad := g != nil
	res, err := md.run(p, grad, true)
	if err != nil {
		return 0, err
	}
	n, m, dim := float64(md.n), md.m, float64(md.dim)
	t := p.tau2
	ls, err := md.landmarks(p, t/n, grad)
	if err != nil {
		return 0, err
	}
	a := p.amp
	mf := float64(m)

	var sumLogEll float64 // Σ_d log ℓ_d
	for d := 0; d < md.dim; d++ {
		sumLogEll += math.Log(p.lengthscale(d))
	}
	logJac := res.logJac + n*(dim*math.Log(a)-2*sumLogEll)
	cssK := a * a * res.css
	var mu2 float64
	for _, v := range res.mu {
		mu2 += v * v
	}
	logdetA := ls.chol.LogDet()
	constant := mf*math.Log(n) + mf*(n-1)*math.Log(t)

	mu := mat.NewVecDense(m, nil)
	for l, v := range res.mu {
		mu.SetVec(l, a*v)
	}
	alpha := mat.NewVecDense(m, nil)
	if md.opt.Variant == Derived {
		if err := linalg.IgnoreCondition(ls.chol.SolveVecTo(alpha, mu)); err != nil {
			return 0, err
		}
	}

	var val float64
	if md.opt.Variant == Published {
		kf2 := cssK + n*a*a*mu2
		val = -0.5*(logdetA+constant+kf2/t) + 2*logJac - n*math.Ln2
		if grad {
			if err := md.publishedGrad(g, p, res, ls, kf2); err != nil {
				return 0, err
			}
		}
		return val, nil
	}

	quad := mat.Dot(mu, alpha)
	val = -0.5*(logdetA+quad+cssK/t+constant+mf*n*math.Log(2*math.Pi)) + logJac
	if !grad {
		return val, nil
	}

	var ainv mat.SymDense
	if err := linalg.IgnoreCondition(ls.chol.InverseTo(&ainv)); err != nil {
		return 0, err
	}
	// B = ααᵀ − A⁻¹: ∂(−½ log|A| − ½ μ̂ᵀA⁻¹μ̂) = ½ tr(B ∂A) − αᵀ∂μ̂.
	b := make([]float64, m*m)
	var trB, trBR float64
	for j := 0; j < m; j++ {
		for k := 0; k < m; k++ {
			v := alpha.AtVec(j)*alpha.AtVec(k) - ainv.At(j, k)
			b[j*m+k] = v
			trBR += v * ls.r.At(j, k)
		}
		trB += b[j*m+j]
	}
	var amu float64 // αᵀμ̂ at amplitude 1
	for l, v := range res.mu {
		amu += alpha.AtVec(l) * v
	}
	g.Tau2 = trB/(2*n) + cssK/(2*t*t) - mf*(n-1)/(2*t)
	g.Amp = trBR/a - amu - a*res.css/t + n*dim/a
	g.Ell = resize(g.Ell, len(p.ell))
	for k := range p.ell {
		lk := p.ell[k]
		var trBdR, ady float64
		for j, v := range b {
			trBdR += v * ls.dr[k][j]
		}
		for l := 0; l < m; l++ {
			ady += alpha.AtVec(l) * res.ymean[l*len(p.ell)+k]
		}
		dims := 1.0
		if len(p.ell) == 1 {
			dims = dim
		}
		g.Ell[k] = 0.5*trBdR - a*ady/lk - a*a*res.ycov[k]/(t*lk) + res.dJac[k]/lk - 2*n*dims/lk
	}
	return val, nil
}

// publishedGrad writes the gradient of the Published density.
func (md *Model) publishedGrad(g *Grad, p *params, res *passResult, ls *landmarkSystem, kf2 float64) error {
	n, m := float64(md.n), md.m
	a, t, l := p.amp, p.tau2, p.ell[0]
	var ainv mat.SymDense
	if err := linalg.IgnoreCondition(ls.chol.InverseTo(&ainv)); err != nil {
		return err
	}
	var trAinv, trAinvR, trAinvdR, muy float64
	for j := 0; j < m; j++ {
		trAinv += ainv.At(j, j)
		for k := 0; k < m; k++ {
			trAinvR += ainv.At(j, k) * ls.r.At(j, k)
			trAinvdR += ainv.At(j, k) * ls.dr[0][j*m+k]
		}
		muy += res.mu[j] * res.ymean[j]
	}
	// ∂‖K‖²/∂ℓ = ∂(centred sum)/∂ℓ + 2n μ̂ᵀ∂μ̂/∂ℓ.
	dkf2 := a * a * (2*res.ycov[0] + 2*n*muy) / l
	g.Tau2 = -trAinv/(2*n) - float64(m)*(n-1)/(2*t) + kf2/(2*t*t)
	g.Amp = -trAinvR/a - kf2/(a*t) + 2*n/a
	g.Ell = resize(g.Ell, 1)
	g.Ell[0] = -0.5*trAinvdR - dkf2/(2*t) + 2*(res.dJac[0]/l-2*n/l)
	return nil
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}
