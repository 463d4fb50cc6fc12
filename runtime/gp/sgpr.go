package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// SGPR (sparse GP regression, "variational free energy") is Titsias'
// collapsed variational bound (Titsias 2009, eq. 9; GPflow's SGPR) on the
// log marginal likelihood of Gaussian-noise GP regression through m
// inducing points z:
//
//	F = log N(y | 0, Q + σ²I) − tr(K − Q)/(2σ²),  Q = K_nz K_zz⁻¹ K_zn.
//
// The first term is the subset-of-regressors/DTC objective of
// LowRankLogMarginal; the trace term, the total conditional variance of f
// given the inducing values, makes F a lower bound on the exact
// log N(y | 0, K + σ²I) that rises towards it as the inducing points cover
// the data, so that inducing points and hyperparameters may be fitted
// together without over-fitting. The n × m work runs in row blocks of
// sgprBlock rows, so memory is O(m² + m·sgprBlock) whatever n is: one
// pass accumulates VVᵀ, Vy, tr K and tr Q (V = L⁻¹K_zn, K_zz = LLᵀ) and a
// second, for the gradient, contracts each block's n × m matrix with the
// kernel's derivatives.

// sgprBlock is the number of data rows per block of the n × m work (a
// variable so that tests can cut small data into several blocks).
var sgprBlock = 2048

// sgprStats are the sums of SGPR's first pass over the data.
type sgprStats struct {
	n, m int
	L    mat.TriDense  // K_zz + jitter = LLᵀ
	P    *mat.SymDense // VVᵀ
	vy   []float64     // Vy
	yy   float64       // yᵀy
	trK  float64       // Σ k(xᵢ, xᵢ)
	trQ  float64       // tr VᵀV
	la   mat.Cholesky  // A = σ²I + VVᵀ
	w    []float64     // A⁻¹Vy
}

// blocks calls fn for each row block [i0, i1) of x with its view,
// checking for an interrupt before each (a block is milliseconds).
func blocks(x *mat.Dense, fn func(i0, i1 int, xb *mat.Dense) error) error {
	n, d := x.Dims()
	for i0 := 0; i0 < n; i0 += sgprBlock {
		interrupt.Check()
		i1 := min(i0+sgprBlock, n)
		if err := fn(i0, i1, x.Slice(i0, i1, 0, d).(*mat.Dense)); err != nil {
			return err
		}
	}
	return nil
}

// blockV returns V_b = L⁻¹K_zb for the rows xb.
func (s *sgprStats) blockV(k kernels.Kernel, z, xb *mat.Dense) (*mat.Dense, error) {
	kzb, err := kernels.Cross(k, z, xb)
	if err != nil {
		return nil, err
	}
	for _, v := range kzb.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, ErrNonFinite
		}
	}
	var v mat.Dense
	if err := linalg.IgnoreCondition(v.Solve(&s.L, kzb)); err != nil {
		return nil, err
	}
	return &v, nil
}

// newStats checks the shapes and factors K_zz (jittered as
// linalg.CholeskyJitter does for a Nyström approximation).
func newStats(k kernels.Kernel, x, z *mat.Dense, y []float64) (*sgprStats, error) {
	n, _ := x.Dims()
	m, _ := z.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	kzz, err := kernels.Gram(k, z)
	if err != nil {
		return nil, err
	}
	s := &sgprStats{n: n, m: m}
	var lz mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&lz, kzz, true); !ok {
		return nil, ErrNotPD
	}
	lz.LTo(&s.L)
	return s, nil
}

// sgprPass is the first pass: the factor of K_zz (jittered as
// linalg.CholeskyJitter does for a Nyström approximation), the sums of
// sgprStats, and the factor of A = σ²I + VVᵀ with w = A⁻¹Vy.
func sgprPass(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) (*sgprStats, error) {
	s, err := newStats(k, x, z, y)
	if err != nil {
		return nil, err
	}
	m := s.m
	s.P, s.vy = mat.NewSymDense(m, nil), make([]float64, m)
	err = blocks(x, func(i0, i1 int, xb *mat.Dense) error {
		v, err := s.blockV(k, z, xb)
		if err != nil {
			return err
		}
		s.P.SymRankK(s.P, 1, v)
		yb := y[i0:i1]
		for a := 0; a < m; a++ {
			row := v.RawRowView(a)
			s.vy[a] += linalg.Dot(row, yb)
			s.trQ += linalg.Dot(row, row)
		}
		for i := i0; i < i1; i++ {
			xi := x.RawRowView(i)
			s.trK += k.Eval(xi, xi)
			s.yy += y[i] * y[i]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.factorA(noise); err != nil {
		return nil, err
	}
	return s, nil
}

// factorA factors A = σ²I + VVᵀ and sets w = A⁻¹Vy.
func (s *sgprStats) factorA(noise float64) error {
	m := s.m
	a := mat.NewSymDense(m, nil)
	a.CopySym(s.P)
	for i := 0; i < m; i++ {
		a.SetSym(i, i, a.At(i, i)+noise)
	}
	if !s.la.Factorize(a) {
		return ErrNotPD
	}
	wv := mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(s.la.SolveVecTo(wv, mat.NewVecDense(m, s.vy))); err != nil {
		return err
	}
	s.w = wv.RawVector().Data
	return nil
}

// bound is F from the first pass's sums.
func (s *sgprStats) bound(noise float64) float64 {
	n, m := s.n, s.m
	vyw := linalg.Dot(s.vy, s.w)
	quad := (s.yy - vyw) / noise
	logdet := float64(n-m)*math.Log(noise) + s.la.LogDet()
	gap := s.trK - s.trQ
	return -0.5*quad - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi) - 0.5*gap/noise
}

// gradParts returns Vα = (Vy − VVᵀw)/σ², Bα = L⁻ᵀVα and
// M = A⁻¹VVᵀL⁻¹/σ² (m × m).
func (s *sgprStats) gradParts(noise float64) (va, ba *mat.VecDense, mm *mat.Dense, err error) {
	m := s.m
	var pw mat.VecDense
	pw.MulVec(s.P, mat.NewVecDense(m, s.w))
	va = mat.NewVecDense(m, nil)
	for i := 0; i < m; i++ {
		va.SetVec(i, (s.vy[i]-pw.AtVec(i))/noise)
	}
	ba = mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(ba.SolveVec(s.L.T(), va)); err != nil {
		return nil, nil, nil, err
	}
	// VVᵀL⁻¹ = (L⁻ᵀVVᵀ)ᵀ.
	var lp mat.Dense
	mm = new(mat.Dense)
	if err := linalg.IgnoreCondition(lp.Solve(s.L.T(), s.P)); err != nil {
		return nil, nil, nil, err
	}
	if err := linalg.IgnoreCondition(s.la.SolveTo(mm, lp.T())); err != nil {
		return nil, nil, nil, err
	}
	mm.Scale(1/noise, mm)
	return va, ba, mm, nil
}

// finishGrad writes the gradient from gsum (the n × m contraction and
// the diagonal's), g2 = Σ_b B_b G_b (m × m), aa = αᵀα; when gz is not
// nil (it holds Σᵢ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂zⱼ already) it adds K_zz's part of
// ∂F/∂z.
func (s *sgprStats) finishGrad(k kernels.Kernel, z *mat.Dense, g2 *mat.Dense, gsum []float64, aa, noise float64, grad, gz []float64) error {
	n, m := s.n, s.m
	nh := k.NumHyper()
	g2s := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			g2s.SetSym(i, j, 0.5*(g2.At(i, j)+g2.At(j, i)))
		}
	}
	if gz != nil {
		kzzGradZ(gz, k, z, g2s)
	}
	tmp := make([]float64, nh)
	Contract(tmp, k, z, g2s)
	for h := range gsum {
		grad[h] = gsum[h] - tmp[h]
	}
	// ∂/∂σ²: ½(αᵀα − tr(Q + σ²I)⁻¹) + tr(K − Q)/(2σ⁴), with
	// tr(Q + σ²I)⁻¹ = (n − tr(A⁻¹VVᵀ))/σ² and tr(A⁻¹VVᵀ) = m − σ²tr A⁻¹.
	var ainv mat.SymDense
	if err := linalg.IgnoreCondition(s.la.InverseTo(&ainv)); err != nil {
		return err
	}
	trAinvP := float64(m)
	for i := 0; i < m; i++ {
		trAinvP -= noise * ainv.At(i, i)
	}
	trCinv := (float64(n) - trAinvP) / noise
	grad[nh] = 0.5*(aa-trCinv) + 0.5*(s.trK-s.trQ)/(noise*noise)
	return nil
}

// SGPRLogMarginal is Titsias' bound F (see SGPR) at noise variance σ² =
// noise with, when grad is not nil, its gradient in k's hyperparameters
// then σ². With W = ααᵀ − (Q + σ²I)⁻¹ and B = K_zz⁻¹K_zn, the DTC part
// contributes ½tr(W∂Q) = Σᵢⱼ (WBᵀ)ᵢⱼ∂k(xᵢ, zⱼ) − ½Σⱼₗ(BWBᵀ)ⱼₗ∂k(zⱼ, zₗ) and
// the trace term −½Σᵢ∂k(xᵢ, xᵢ)/σ² + Σᵢⱼ(Bᵀ/σ²)ᵢⱼ∂k(xᵢ, zⱼ) −
// ½Σⱼₗ(BBᵀ/σ²)ⱼₗ∂k(zⱼ, zₗ), so that both go through one n × m matrix
// G = WBᵀ + Bᵀ/σ², whose rows are αᵢ(Bα)ᵀ + V_iᵀM with
// M = A⁻¹VVᵀL⁻¹/σ² (the −Bᵀ/σ² of WBᵀ and the trace term's Bᵀ/σ² cancel),
// formed block by block, and the m × m matrix BG = Σ_blocks B_b G_b.
func SGPRLogMarginal(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, grad []float64) (float64, error) {
	return SGPRLogMarginalZ(k, x, z, y, noise, grad, nil)
}

// SGPRLogMarginalZ is SGPRLogMarginal that also writes, when gz is not
// nil (m × d, row-major, with grad), the bound's gradient in the inducing
// points themselves, so that they can be learned with the hyperparameters
// (Titsias 2009, §3: F is a lower bound whatever z is, so maximising it
// over z cannot over-fit). With the G and BG of SGPRLogMarginal,
//
//	∂F/∂zⱼ = Σᵢ Gᵢⱼ ∂k(xᵢ, zⱼ)/∂zⱼ − Σₗ (BG)ˢʲₗ ∂k(zⱼ, zₗ)/∂zⱼ,
//
// (BG)ˢ the symmetric part: the same two matrices as the hyperparameters',
// contracted with the kernel's derivative in its input instead (k.GradX;
// in the matrix form, Hᵀx̃ and H's column sums from each block's H).
// The jitter K_zz takes for its factor is held fixed, as it is for the
// hyperparameters.
func SGPRLogMarginalZ(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, grad, gz []float64) (float64, error) {
	if gz != nil {
		m, d := z.Dims()
		if grad == nil || len(gz) != m*d {
			panic(fmt.Sprintf("gp: SGPRLogMarginalZ needs grad and %d×%d values for gz", m, d))
		}
		clear(gz)
	}
	if !(noise > 0) {
		return 0, fmt.Errorf("gp: the noise variance must be positive, got %g", noise)
	}
	if fk, err := sparseFast(k, x, z, y); err != nil || fk != nil {
		if err != nil {
			return 0, err
		}
		return sgprFast(fk, k, x, z, y, noise, grad, gz, false)
	}
	s, err := sgprPass(k, x, z, y, noise)
	if err != nil {
		return 0, err
	}
	bound := s.bound(noise)
	if grad == nil {
		return bound, nil
	}
	_, ba, mm, err := s.gradParts(noise)
	if err != nil {
		return 0, err
	}
	nh := k.NumHyper()
	gsum := make([]float64, nh)
	tmp := make([]float64, nh)
	m := s.m
	g2 := mat.NewDense(m, m, nil)
	var aa float64
	err = blocks(x, func(i0, i1 int, xb *mat.Dense) error {
		v, err := s.blockV(k, z, xb)
		if err != nil {
			return err
		}
		nb := i1 - i0
		// α_b = (y_b − V_bᵀw)/σ².
		alpha := make([]float64, nb)
		var vw mat.VecDense
		vw.MulVec(v.T(), mat.NewVecDense(m, s.w))
		for i := range alpha {
			alpha[i] = (y[i0+i] - vw.AtVec(i)) / noise
			aa += alpha[i] * alpha[i]
		}
		// G_b = V_bᵀM + α_b(Bα)ᵀ; B_b = L⁻ᵀV_b.
		g := mat.NewDense(nb, m, nil)
		g.Mul(v.T(), mm)
		g.RankOne(g, 1, mat.NewVecDense(nb, alpha), ba)
		ContractCross(tmp, k, xb, z, g)
		for h := range gsum {
			gsum[h] += tmp[h]
		}
		if gz != nil {
			crossGradZ(gz, k, xb, z, g)
		}
		var b mat.Dense
		if err := linalg.IgnoreCondition(b.Solve(s.L.T(), v)); err != nil {
			return err
		}
		var bg mat.Dense
		bg.Mul(&b, g)
		g2.Add(g2, &bg)
		for i := i0; i < i1; i++ {
			xi := x.RawRowView(i)
			k.GradHyper(tmp, xi, xi)
			for h := range gsum {
				gsum[h] -= 0.5 * tmp[h] / noise
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return bound, s.finishGrad(k, z, g2, gsum, aa, noise, grad, gz)
}

// SGPRPredict is the predictive of f at the rows of xnew under SGPR's
// optimal variational posterior q(u) = N(σ⁻²K_zz Σ K_zn y, K_zz Σ K_zz),
// Σ = (K_zz + σ⁻²K_zn K_nz)⁻¹ (Titsias 2009, eqs. 10–11): the mean
// K_*z Σ K_zn y/σ² = V_*ᵀA⁻¹Vy and the variance k_** − Q_** +
// K_*z Σ K_z* = k_** − V_*ᵀV_* + σ²V_*ᵀA⁻¹V_*, V_* = L⁻¹K_z*. Its formula
// is the DTC predictive's (LowRankPredict), here at any n in row blocks;
// what the bound changes is the hyperparameters and inducing points it
// is evaluated at.
//
// Kernels of the matrix form (sgprFast) take it for both passes, the
// training rows' and the new rows'.
func SGPRPredict(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, xnew *mat.Dense) (mean, fvar []float64, err error) {
	if fk, err := sparseFast(k, x, z, y); err != nil || fk != nil {
		if err != nil {
			return nil, nil, err
		}
		s, linv, err := fastPass(fk, k, x, z, y, noise)
		if err != nil {
			return nil, nil, err
		}
		return s.predictFast(k, linv, z, xnew, noise)
	}
	s, err := sgprPass(k, x, z, y, noise)
	if err != nil {
		return nil, nil, err
	}
	return s.predict(k, z, xnew, noise)
}

// predict is the predictive of f at xnew from a first pass whose la
// factors A and whose w = A⁻¹(VΛ⁻¹y) for a diagonal Λ: mean V_*ᵀw and
// variance k_** − V_*ᵀV_* + c·V_*ᵀA⁻¹V_*, in row blocks. SGPR's A is
// σ²I + VVᵀ (c = σ²); FITC's is I + VΛ⁻¹Vᵀ (c = 1).
func (s *sgprStats) predict(k kernels.Kernel, z, xnew *mat.Dense, c float64) (mean, fvar []float64, err error) {
	p, _ := xnew.Dims()
	mean = make([]float64, p)
	fvar = make([]float64, p)
	m := s.m
	col := make([]float64, m)
	err = blocks(xnew, func(i0, i1 int, xb *mat.Dense) error {
		v, err := s.blockV(k, z, xb)
		if err != nil {
			return err
		}
		var av mat.Dense
		if err := linalg.IgnoreCondition(s.la.SolveTo(&av, v)); err != nil {
			return err
		}
		for j := 0; j < i1-i0; j++ {
			mat.Col(col, j, v)
			var q, r float64
			for a := 0; a < m; a++ {
				q += col[a] * col[a]
				r += col[a] * av.At(a, j)
			}
			xj := xnew.RawRowView(i0 + j)
			mean[i0+j] = linalg.Dot(col, s.w)
			fvar[i0+j] = math.Max(k.Eval(xj, xj)-q+c*r, 0)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return mean, fvar, nil
}
