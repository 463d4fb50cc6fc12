// Package kbrstudy reproduces the kernel Bayes' rule paper's sections 5.1
// and 5.2 (Fukumizu, Song and Gretton 2013): the posterior mean E[X | y]
// by KBR against kernel density estimation with importance weighting
// (KDE + IW) for dimensions 2 to 64, and KBR and the conditional mean
// embedding against rejection ABC, accuracy against computing time. Both
// use the paper's Gaussian model, whose posterior is known in closed form.
// The studies run only when asked and write CSV files that
// examples/kbr_dimension.kml and examples/kbr_gaussian.kml draw:
//
//	KML_KBR_STUDY=1 go test -run Study -v -timeout 60m ./studies/kbrstudy
//
// The small tests of the formulas (the posterior, KDE + IW, least-squares
// cross-validation) run with go test ./... as usual.
package kbrstudy

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// gaussModel is §5.1's model: (X, Y) ~ N((0_d, 1_d), V) with V = AᵀA +
// 2I_{2d} and A a 2d×2d matrix of independent N(0, 1) entries drawn anew
// for each run; the prior Π is N(0, V_XX/2).
type gaussModel struct {
	d int
	v *mat.SymDense
	// The conditional law of Y given X = x under V: N(1 + Bx, S).
	b *mat.Dense
	s *mat.SymDense
	// The prior covariance V_XX/2, and chol factors for drawing.
	prior            *mat.SymDense
	cholV, cholPrior mat.Cholesky
	// gain maps y − 1 to the exact posterior mean under the prior:
	// (Σ₀⁻¹ + BᵀS⁻¹B)⁻¹BᵀS⁻¹.
	gain *mat.Dense
	// cholMarg draws y from its marginal under the prior, N(1, BΣ₀Bᵀ + S).
	cholMarg mat.Cholesky
}

func newGaussModel(r *rand.Rand, d int) *gaussModel {
	a := mat.NewDense(2*d, 2*d, nil)
	for i := 0; i < 2*d; i++ {
		for j := 0; j < 2*d; j++ {
			a.Set(i, j, r.NormFloat64())
		}
	}
	v := mat.NewSymDense(2*d, nil)
	v.SymOuterK(1, a.T())
	for i := 0; i < 2*d; i++ {
		v.SetSym(i, i, v.At(i, i)+2)
	}
	return modelFromV(d, v)
}

func modelFromV(d int, v *mat.SymDense) *gaussModel {
	g := &gaussModel{d: d, v: v}
	vxx := mat.NewSymDense(d, nil)
	vyy := mat.NewSymDense(d, nil)
	vyx := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			vxx.SetSym(i, j, v.At(i, j))
			vyy.SetSym(i, j, v.At(d+i, d+j))
			vyx.Set(i, j, v.At(d+i, j))
		}
	}
	var cxx mat.Cholesky
	must(cxx.Factorize(vxx))
	g.b = &mat.Dense{}
	must(cxx.SolveTo(g.b, vyx.T()) == nil) // V_XX⁻¹V_XY
	g.b = mat.DenseCopyOf(g.b.T())         // B = V_YX V_XX⁻¹
	var bvxy mat.Dense
	bvxy.Mul(g.b, vyx.T())
	g.s = mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			g.s.SetSym(i, j, vyy.At(i, j)-0.5*(bvxy.At(i, j)+bvxy.At(j, i)))
		}
	}
	g.prior = mat.NewSymDense(d, nil)
	g.prior.ScaleSym(0.5, vxx)
	must(g.cholV.Factorize(v))
	must(g.cholPrior.Factorize(g.prior))
	// Posterior precision Σ₀⁻¹ + BᵀS⁻¹B and gain (…)⁻¹BᵀS⁻¹.
	var cs mat.Cholesky
	must(cs.Factorize(g.s))
	var sinvB mat.Dense
	must(cs.SolveTo(&sinvB, g.b) == nil)
	var p0inv mat.Dense
	var cp mat.Cholesky
	must(cp.Factorize(g.prior))
	inv := mat.NewSymDense(d, nil)
	must(cp.InverseTo(inv) == nil)
	p0inv.CloneFrom(inv)
	var prec mat.Dense
	prec.Mul(g.b.T(), &sinvB)
	prec.Add(&prec, &p0inv)
	g.gain = &mat.Dense{}
	must(g.gain.Solve(&prec, sinvB.T()) == nil)
	var bp, marg mat.Dense
	bp.Mul(g.b, g.prior)
	marg.Mul(&bp, g.b.T())
	ms := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			ms.SetSym(i, j, 0.5*(marg.At(i, j)+marg.At(j, i))+g.s.At(i, j))
		}
	}
	must(g.cholMarg.Factorize(ms))
	return g
}

func must(ok bool) {
	if !ok {
		panic("kbrstudy: a covariance matrix is not positive definite")
	}
}

// gaussRows draws n rows from N(mean, LLᵀ) for the Cholesky factor of ch.
func gaussRows(r *rand.Rand, n int, mean []float64, ch *mat.Cholesky) *mat.Dense {
	var l mat.TriDense
	ch.LTo(&l)
	k := len(mean)
	z := mat.NewDense(n, k, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			z.Set(i, j, r.NormFloat64())
		}
	}
	var out mat.Dense
	out.Mul(z, l.T())
	for i := 0; i < n; i++ {
		for j := 0; j < k; j++ {
			out.Set(i, j, out.At(i, j)+mean[j])
		}
	}
	return &out
}

func (g *gaussModel) ones() []float64 {
	o := make([]float64, g.d)
	for i := range o {
		o[i] = 1
	}
	return o
}

// joint draws n pairs (X_i, Y_i) from N((0, 1), V).
func (g *gaussModel) joint(r *rand.Rand, n int) (x, y *mat.Dense) {
	mean := append(make([]float64, g.d), g.ones()...)
	z := gaussRows(r, n, mean, &g.cholV)
	return mat.DenseCopyOf(z.Slice(0, n, 0, g.d)), mat.DenseCopyOf(z.Slice(0, n, g.d, 2*g.d))
}

// priorSample draws n rows from the prior N(0, V_XX/2).
func (g *gaussModel) priorSample(r *rand.Rand, n int) *mat.Dense {
	return gaussRows(r, n, make([]float64, g.d), &g.cholPrior)
}

// observations draws m observations y from their marginal under the
// prior, N(1, BΣ₀Bᵀ + S).
func (g *gaussModel) observations(r *rand.Rand, m int) *mat.Dense {
	return gaussRows(r, m, g.ones(), &g.cholMarg)
}

// simulate draws y | x ~ N(1 + Bx, S) for each row of x.
func (g *gaussModel) simulate(r *rand.Rand, x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	var cs mat.Cholesky
	must(cs.Factorize(g.s))
	noise := gaussRows(r, n, g.ones(), &cs)
	var out mat.Dense
	out.Mul(x, g.b.T())
	out.Add(&out, noise)
	return &out
}

// posteriorMean returns E[X | y] under the prior for each row of ys.
func (g *gaussModel) posteriorMean(ys *mat.Dense) *mat.Dense {
	m, d := ys.Dims()
	c := mat.NewDense(m, d, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			c.Set(i, j, ys.At(i, j)-1)
		}
	}
	var out mat.Dense
	out.Mul(c, g.gain.T())
	return &out
}

// posteriorTrace is tr Σ_post, Σ_post = (Σ₀⁻¹ + BᵀS⁻¹B)⁻¹, the posterior
// covariance (the same for every y): by Woodbury Σ₀ − Σ₀Bᵀ(BΣ₀Bᵀ + S)⁻¹BΣ₀,
// that is Σ₀ − gain·BΣ₀ with gain = Σ_post BᵀS⁻¹ = Σ₀Bᵀ(BΣ₀Bᵀ + S)⁻¹.
func (g *gaussModel) posteriorTrace() float64 {
	var bp, kbp mat.Dense
	bp.Mul(g.b, g.prior)
	kbp.Mul(g.gain, &bp)
	t := 0.0
	for i := 0; i < g.d; i++ {
		t += g.prior.At(i, i) - kbp.At(i, i)
	}
	return t
}

// sqError is the mean over rows of ‖est_i − want_i‖².
func sqError(est, want *mat.Dense) float64 {
	m, d := want.Dims()
	s := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			e := est.At(i, j) - want.At(i, j)
			s += e * e
		}
	}
	return s / float64(m)
}

// logSumExp is log Σ exp(v) without overflow.
func logSumExp(v []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range v {
		mx = math.Max(mx, x)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - mx)
	}
	return mx + math.Log(s)
}
