package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// LowRankLogMarginal is the log marginal likelihood of Gaussian-noise GP
// regression with the Nyström (subset-of-regressors, "deterministic
// training conditional") approximation of the Gram matrix through the m
// inducing points z,
//
//	log N(y | 0, Q + σ²I),  Q = K_nz K_zz⁻¹ K_zn,
//
// in O(nm² + m³) time and O(nm) memory, by Woodbury with V = L⁻¹K_zn
// (K_zz = LLᵀ, jittered as linalg.CholeskyJitter does) and
// A = σ²I + VVᵀ: log|Q + σ²I| = (n − m) log σ² + log|A| and
// (Q + σ²I)⁻¹ = (I − VᵀA⁻¹V)/σ². grad, when not nil, receives the
// derivatives in k's hyperparameters then σ²: with W = ααᵀ − (Q + σ²I)⁻¹
// and B = K_zz⁻¹K_zn, ½tr(W ∂Q) = Σᵢⱼ (WBᵀ)ᵢⱼ ∂k(xᵢ, zⱼ) − ½Σⱼₗ (BWBᵀ)ⱼₗ
// ∂k(zⱼ, zₗ), never forming an n×n matrix. A white kernel inside k
// contributes nothing here (no data row is an inducing point's twin, in
// general): the noise belongs in σ². Sums of scaled stationary kernels
// take SGPR's matrix form (sgprFast), streamed in row blocks, so memory is
// O(m² + m·sgprFastBlock) there instead of O(nm).
func LowRankLogMarginal(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, grad []float64) (float64, error) {
	n, _ := x.Dims()
	m, _ := z.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if noise > 0 {
		if fk, err := sparseFast(k, x, z, y); err != nil || fk != nil {
			if err != nil {
				return 0, err
			}
			return sgprFast(fk, k, x, z, y, noise, grad, nil, true)
		}
	}
	kzz, err := kernels.Gram(k, z)
	if err != nil {
		return 0, err
	}
	kzn, err := kernels.Cross(k, z, x)
	if err != nil {
		return 0, err
	}
	for _, v := range kzn.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, ErrNonFinite
		}
	}
	var lz mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&lz, kzz, true); !ok {
		return 0, ErrNotPD
	}
	var L mat.TriDense
	lz.LTo(&L)
	// V = L⁻¹K_zn, A = σ²I + VVᵀ.
	var v mat.Dense
	if err := linalg.IgnoreCondition(v.Solve(&L, kzn)); err != nil {
		return 0, err
	}
	a := mat.NewSymDense(m, nil)
	a.SymOuterK(1, &v)
	for i := 0; i < m; i++ {
		a.SetSym(i, i, a.At(i, i)+noise)
	}
	var la mat.Cholesky
	if !la.Factorize(a) {
		return 0, ErrNotPD
	}
	// α = (y − VᵀA⁻¹Vy)/σ².
	yv := mat.NewVecDense(n, y)
	var vy, avy, t mat.VecDense
	vy.MulVec(&v, yv)
	if err := linalg.IgnoreCondition(la.SolveVecTo(&avy, &vy)); err != nil {
		return 0, err
	}
	t.MulVec(v.T(), &avy)
	alpha := mat.NewVecDense(n, nil)
	alpha.SubVec(yv, &t)
	alpha.ScaleVec(1/noise, alpha)
	quad := mat.Dot(yv, alpha)
	logdet := float64(n-m)*math.Log(noise) + la.LogDet()
	lml := -0.5*quad - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if grad == nil {
		return lml, nil
	}
	// B = K_zz⁻¹K_zn = L⁻ᵀV.
	var b mat.Dense
	if err := linalg.IgnoreCondition(b.Solve(L.T(), &v)); err != nil {
		return 0, err
	}
	// G1 = WBᵀ = α(Bα)ᵀ − (Bᵀ − VᵀA⁻¹VBᵀ)/σ² (n×m).
	var ba mat.VecDense
	ba.MulVec(&b, alpha)
	var vbt, avbt, corr mat.Dense
	vbt.Mul(&v, b.T()) // m×m
	if err := linalg.IgnoreCondition(la.SolveTo(&avbt, &vbt)); err != nil {
		return 0, err
	}
	corr.Mul(v.T(), &avbt) // n×m
	g1 := mat.NewDense(n, m, nil)
	g1.Sub(b.T(), &corr)
	g1.Scale(-1/noise, g1)
	g1.RankOne(g1, 1, alpha, &ba)
	// G2 = B·G1 (m×m, symmetric).
	var g2d mat.Dense
	g2d.Mul(&b, g1)
	g2 := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			g2.SetSym(i, j, 0.5*(g2d.At(i, j)+g2d.At(j, i)))
		}
	}
	nh := k.NumHyper()
	ContractCross(grad[:nh], k, x, z, g1)
	d2 := make([]float64, nh)
	Contract(d2, k, z, g2)
	for h := range d2 {
		grad[h] -= d2[h]
	}
	// ∂/∂σ² = ½(αᵀα − tr(Q + σ²I)⁻¹), tr = (n − tr(A⁻¹VVᵀ))/σ², VVᵀ = A − σ²I.
	var ainv mat.SymDense
	if err := linalg.IgnoreCondition(la.InverseTo(&ainv)); err != nil {
		return 0, err
	}
	trAinvVV := float64(m)
	for i := 0; i < m; i++ {
		trAinvVV -= noise * ainv.At(i, i)
	}
	trCinv := (float64(n) - trAinvVV) / noise
	grad[nh] = 0.5 * (mat.Dot(alpha, alpha) - trCinv)
	return lml, nil
}
