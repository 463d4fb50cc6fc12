package bke

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// landmarkSystem is A = R + (τ²/n) I on the landmarks, factorised, with
// R's derivatives when a gradient is wanted. Its matrices are m×m
// row-major slices and its factor comes from lapack64 directly:
// mat.Cholesky estimated A's condition number at every factorisation,
// which nothing read (a quarter of the factorisation's cost at m = 20–30;
// the landmark side was 40% of a log density at n = 800, m = 20 once the
// pass had its tiles).
type landmarkSystem struct {
	m      int
	r      []float64   // R, both triangles
	dr     [][]float64 // per lengthscale p, ∂R/∂ℓ_p
	nugget float64     // τ²/n plus the jitter factorJitterRaw added
	u      []float64   // the upper Cholesky factor U of A, UᵀU = A
	logDet float64     // log det A
	inv    []float64   // inverse's workspace
}

// landmarkBufs are the m×m workspaces of a landmark system, kept in the
// model's pool between log densities (NUTS evaluates thousands at one
// size; allocating them, about 6m² numbers a gradient, kept the garbage
// collector at a tenth of `kml run bench/stan/bke2.kml`).
//
// They hold the rest of a log density's workspaces too: the pass's
// buffers, the parameters, the landmark system and α.
type landmarkBufs struct {
	r, u, inv, b []float64   // m×m
	dr           [][]float64 // D of m×m
	gram         []float64   // gram's pair terms, (1 + D)·m(m+1)/2
	pass         passBufs
	p            params
	ls           landmarkSystem
	alpha        []float64 // m
}

func (md *Model) newLandmarkBufs() *landmarkBufs {
	m, dim := md.m, md.dim
	lb := &landmarkBufs{
		r: make([]float64, m*m), u: make([]float64, m*m),
		inv: make([]float64, m*m), b: make([]float64, m*m),
		dr:   make([][]float64, dim),
		gram: make([]float64, (1+dim)*m*(m+1)/2),
	}
	for k := range lb.dr {
		lb.dr[k] = make([]float64, m*m)
	}
	return lb
}

// landmarks builds R_zz from the prior kernel and factorises A = R + nugget·I,
// in lb's buffers (new ones when lb is nil).
func (md *Model) landmarks(p *params, nugget float64, grad bool, lb *landmarkBufs) (*landmarkSystem, error) {
	m, np := md.m, len(p.ell)
	if lb == nil {
		lb = md.newLandmarkBufs()
	}
	lb.ls = landmarkSystem{m: m, r: lb.r, u: lb.u, inv: lb.inv}
	ls := &lb.ls
	if grad {
		ls.dr = lb.dr[:np]
	}
	// The prior kernel as md.prior makes it, here without allocating:
	// prepare and New validated every argument.
	pk := PriorKernel{amp: p.amp, ell: p.ell, measure: md.opt.Prior}
	if pk.measure == Gaussian {
		pk.eta = md.opt.Eta
	}
	pk.gram(ls.r, ls.dr, md.z, m, lb.gram)
	if err := ls.factor(nugget); err != nil {
		return nil, err
	}
	return ls, nil
}

// factor sets ls.u to the Cholesky factor of R + nugget·I, adding to the
// diagonal, when that is not numerically positive definite, the smallest
// jitter of linalg.CholeskyJitter's schedule that works (as factorJitter
// does).
func (ls *landmarkSystem) factor(nugget float64) error {
	m := ls.m
	var mean float64
	for j := 0; j < m; j++ {
		mean += ls.r[j*m+j] + nugget
	}
	mean /= float64(m)
	try := func(jit float64) bool {
		copy(ls.u, ls.r)
		for j := 0; j < m; j++ {
			ls.u[j*m+j] += nugget + jit
		}
		if _, ok := lapack64.Potrf(blas64.Symmetric{N: m, Stride: m, Uplo: blas.Upper, Data: ls.u}); !ok {
			return false
		}
		ls.nugget = nugget + jit
		return true
	}
	ok := try(0)
	for jit := range linalg.Jitters(mean) {
		if ok {
			break
		}
		ok = try(jit)
	}
	if !ok {
		return fmt.Errorf("bke: the landmark matrix R + (tau2/n) I is not positive definite even with %g × its mean diagonal added: are landmarks duplicated, or is the lengthscale very large for this noise?", linalg.JitterMax)
	}
	ls.logDet = 0
	for j := 0; j < m; j++ {
		ls.logDet += 2 * math.Log(ls.u[j*m+j])
	}
	return nil
}

// tri is ls.u as lapack64 takes it.
func (ls *landmarkSystem) tri() blas64.Triangular {
	return blas64.Triangular{N: ls.m, Stride: ls.m, Uplo: blas.Upper, Diag: blas.NonUnit, Data: ls.u}
}

// solve overwrites b with A⁻¹b: Uᵀy = b, then Ux = y (lapack64.Potrs
// through Dtrsm on one column took as long as the factorisation at m = 30).
func (ls *landmarkSystem) solve(b []float64) {
	m, u := ls.m, ls.u
	b = b[:m]
	for i := range b {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= u[k*m+i] * b[k]
		}
		b[i] = s / u[i*m+i]
	}
	for i := m - 1; i >= 0; i-- {
		s := b[i]
		row := u[i*m : (i+1)*m]
		for k := i + 1; k < m; k++ {
			s -= row[k] * b[k]
		}
		b[i] = s / row[i]
	}
}

// inverse returns A⁻¹, both triangles, m×m row-major, in ls's workspace.
func (ls *landmarkSystem) inverse() []float64 {
	m := ls.m
	inv := ls.inv[:m*m]
	copy(inv, ls.u)
	lapack64.Potri(blas64.Triangular{N: m, Stride: m, Uplo: blas.Upper, Diag: blas.NonUnit, Data: inv})
	for j := 0; j < m; j++ {
		for k := j + 1; k < m; k++ {
			inv[k*m+j] = inv[j*m+k]
		}
	}
	return inv
}

// chol returns A's factor as a mat.Cholesky, for linalg.GPPredict.
func (ls *landmarkSystem) chol() *mat.Cholesky {
	var c mat.Cholesky
	c.SetFromU(mat.NewTriDense(ls.m, mat.Upper, append([]float64(nil), ls.u...)))
	return &c
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
// O(m³ + nmD³) with the gradient; memory is O(nD + m²D + (n/128 + W) mD)
// for W workers (the model keeps a column-major copy of x for D ≤ 2, the
// tiles' layout). The differences x_i − z_l are recomputed in the pass
// rather than stored (O(nmD) memory): loading them was not measurably
// faster.
//
// The Published variant is what the authors' Stan program (appendix B)
// computes, with its normalised prior and amplitude 1 when Options and
// Hyper keep their defaults:
//
//	log p = −½ [ log|A| + m log n + m(n−1) log τ² + ‖K‖_F²/τ² ]
//	        + Σ_i log(½ Σ_l K_il² (x_i − z_l)²/ℓ⁴)
//
// in D = 1, as the program is written, and in D > 1 the same with the last
// term Σ_i log(½ Σ_l ‖∇ₓ k(x_i, z_l)‖²) (publishedJacobian says why).
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
	lb, _ := md.landmarkPool.Get().(*landmarkBufs)
	if lb == nil {
		lb = md.newLandmarkBufs()
	}
	defer md.landmarkPool.Put(lb)
	p := &lb.p
	if err := md.prepareIn(h, true, p); err != nil {
		return 0, err
	}
	grad := g != nil
	// The Published variant in D > 1 takes its Jacobian term from
	// publishedJacobian, not the pass.
	pubND := md.opt.Variant == Published && md.dim > 1
	res, err := md.runIn(p, grad, !pubND, &lb.pass)
	if err != nil {
		return 0, err
	}
	n, m, dim := float64(md.n), md.m, float64(md.dim)
	t := p.tau2
	ls, err := md.landmarks(p, t/n, grad, lb)
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
	logdetA := ls.logDet
	constant := mf*math.Log(n) + mf*(n-1)*math.Log(t)

	alpha := grow(&lb.alpha, m) // A⁻¹μ̂ at amplitude a
	clear(alpha)
	if md.opt.Variant == Derived {
		for l, v := range res.mu {
			alpha[l] = a * v
		}
		ls.solve(alpha)
	}

	var val float64
	if md.opt.Variant == Published {
		kf2 := cssK + n*a*a*mu2
		var jacTerm float64
		var dJac []float64 // ∂(Jacobian term)/∂ℓ_p
		if grad {
			dJac = make([]float64, len(p.ell))
		}
		if pubND {
			if jacTerm, err = md.publishedJacobian(p, dJac); err != nil {
				return 0, err
			}
		} else {
			// D = 1: Σ_i log(½ J_i) = 2 Σ_i ½ log J_i − n log 2.
			jacTerm = 2*logJac - n*math.Ln2
			if grad {
				dJac[0] = 2 * (res.dJac[0]/p.ell[0] - 2*n/p.ell[0])
			}
		}
		val = -0.5*(logdetA+constant+kf2/t) + jacTerm
		if grad {
			md.publishedGrad(g, p, res, ls, kf2, dJac)
		}
		return val, nil
	}

	var quad float64
	for l, v := range res.mu {
		quad += a * v * alpha[l]
	}
	val = -0.5*(logdetA+quad+cssK/t+constant+mf*n*math.Log(2*math.Pi)) + logJac
	if !grad {
		return val, nil
	}

	ainv := ls.inverse()
	// B = ααᵀ − A⁻¹: ∂(−½ log|A| − ½ μ̂ᵀA⁻¹μ̂) = ½ tr(B ∂A) − αᵀ∂μ̂.
	b := lb.b
	var trB, trBR float64
	for j := 0; j < m; j++ {
		for k := 0; k < m; k++ {
			v := alpha[j]*alpha[k] - ainv[j*m+k]
			b[j*m+k] = v
			trBR += v * ls.r[j*m+k]
		}
		trB += b[j*m+j]
	}
	var amu float64 // αᵀμ̂ at amplitude 1
	for l, v := range res.mu {
		amu += alpha[l] * v
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
			ady += alpha[l] * res.ymean[l*len(p.ell)+k]
		}
		dims := 1.0
		if len(p.ell) == 1 {
			dims = dim
		}
		g.Ell[k] = 0.5*trBdR - a*ady/lk - a*a*res.ycov[k]/(t*lk) + res.dJac[k]/lk - 2*n*dims/lk
	}
	return val, nil
}

// publishedGrad writes the gradient of the Published density; dJac is
// the Jacobian term's derivative with respect to each lengthscale (its
// derivative with respect to σ² is 2n/σ² in every dimension).
func (md *Model) publishedGrad(g *Grad, p *params, res *passResult, ls *landmarkSystem, kf2 float64, dJac []float64) {
	n, m, np := float64(md.n), md.m, len(p.ell)
	a, t := p.amp, p.tau2
	ainv := ls.inverse()
	var trAinv, trAinvR float64
	for j := 0; j < m; j++ {
		trAinv += ainv[j*m+j]
		for k := 0; k < m; k++ {
			trAinvR += ainv[j*m+k] * ls.r[j*m+k]
		}
	}
	g.Tau2 = -trAinv/(2*n) - float64(m)*(n-1)/(2*t) + kf2/(2*t*t)
	g.Amp = -trAinvR/a - kf2/(a*t) + 2*n/a
	g.Ell = resize(g.Ell, np)
	for k, lk := range p.ell {
		var trAinvdR, muy float64
		for j, v := range ainv {
			trAinvdR += v * ls.dr[k][j]
		}
		for l := 0; l < m; l++ {
			muy += res.mu[l] * res.ymean[l*np+k]
		}
		// ∂‖K‖²/∂ℓ_k = ∂(centred sum)/∂ℓ_k + 2n μ̂ᵀ∂μ̂/∂ℓ_k.
		dkf2 := a * a * (2*res.ycov[k] + 2*n*muy) / lk
		g.Ell[k] = -0.5*trAinvdR - dkf2/(2*t) + dJac[k]
	}
}

func resize(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}
