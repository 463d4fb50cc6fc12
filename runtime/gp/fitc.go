package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// FITCLogMarginal is the log marginal likelihood of the fully independent
// training conditional (Snelson and Ghahramani 2006; Quiñonero-Candela and
// Rasmussen 2005, eq. 18):
//
//	log N(y | 0, Q + Λ),  Λ = diag(K − Q) + σ²I,  Q = K_nz K_zz⁻¹ K_zn,
//
// the DTC model with each point's own prior variance restored on the
// diagonal, with, when grad is not nil, its gradient in k's
// hyperparameters then σ². By Woodbury with V = L⁻¹K_zn (K_zz = LLᵀ) and
// A = I + VΛ⁻¹Vᵀ: log|Q + Λ| = log|Λ| + log|A| and (Q + Λ)⁻¹ =
// Λ⁻¹ − Λ⁻¹VᵀA⁻¹VΛ⁻¹, in SGPR's row blocks (memory O(m² + m·block)). With
// W = ααᵀ − (Q + Λ)⁻¹ and B = K_zz⁻¹K_zn the gradient is
// ½tr(W∂Q) − ½Σᵢ Wᵢᵢ∂Qᵢᵢ + ½Σᵢ Wᵢᵢ∂k(xᵢ, xᵢ) (+ ½tr W for σ²): one n × m
// matrix G = WBᵀ − diag(W)Bᵀ, whose row i is αᵢ(Bα)ᵀ − V_iᵀA⁻¹L⁻¹/λᵢ −
// Wᵢᵢ B_iᵀ, contracted with ∂k(xᵢ, zⱼ), and BG with ∂k(zⱼ, zₗ).
func FITCLogMarginal(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, grad []float64) (float64, error) {
	if !(noise > 0) {
		return 0, fmt.Errorf("gp: the noise variance must be positive, got %g", noise)
	}
	if fk, err := sparseFast(k, x, z, y); err != nil || fk != nil {
		if err != nil {
			return 0, err
		}
		return fitcFast(fk, k, x, z, y, noise, grad)
	}
	f, err := fitcPass(k, x, z, y, noise)
	if err != nil {
		return 0, err
	}
	s, a, u, w, lambda := f.sgprStats, f.a, f.u, f.w, f.lambda
	n, m := s.n, s.m
	la := &s.la
	wv := mat.NewVecDense(m, w)
	quad := f.yly - linalg.Dot(u, w)
	lml := -0.5*quad - 0.5*(f.logLam+la.LogDet()) - 0.5*float64(n)*math.Log(2*math.Pi)
	if grad == nil {
		return lml, nil
	}
	// Vα = u − (A − I)w, Bα = L⁻ᵀVα; M = A⁻¹L⁻¹ (m × m).
	var aw mat.VecDense
	aw.MulVec(a, wv)
	va := make([]float64, m)
	for i := range va {
		va[i] = u[i] - (aw.AtVec(i) - w[i])
	}
	ba := mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(ba.SolveVec(s.L.T(), mat.NewVecDense(m, va))); err != nil {
		return 0, err
	}
	var linv, mm mat.Dense
	eye := mat.NewDiagDense(m, nil)
	for i := 0; i < m; i++ {
		eye.SetDiag(i, 1)
	}
	if err := linalg.IgnoreCondition(linv.Solve(&s.L, eye)); err != nil {
		return 0, err
	}
	if err := linalg.IgnoreCondition(la.SolveTo(&mm, &linv)); err != nil {
		return 0, err
	}
	nh := k.NumHyper()
	gsum := make([]float64, nh)
	tmp := make([]float64, nh)
	g2 := mat.NewDense(m, m, nil)
	var trW float64
	err = blocks(x, func(i0, i1 int, xb *mat.Dense) error {
		v, err := s.blockV(k, z, xb)
		if err != nil {
			return err
		}
		nb := i1 - i0
		var b, av mat.Dense
		if err := linalg.IgnoreCondition(b.Solve(s.L.T(), v)); err != nil {
			return err
		}
		if err := linalg.IgnoreCondition(la.SolveTo(&av, v)); err != nil {
			return err
		}
		g := mat.NewDense(nb, m, nil)
		g.Mul(v.T(), &mm) // row i: VᵢᵀA⁻¹L⁻¹
		col := make([]float64, m)
		for j := 0; j < nb; j++ {
			xi := x.RawRowView(i0 + j)
			lam := lambda(v, j, xi)
			mat.Col(col, j, v)
			alpha := (y[i0+j] - linalg.Dot(col, w)) / lam
			// (Q + Λ)⁻¹ᵢᵢ = 1/λᵢ − VᵢᵀA⁻¹Vᵢ/λᵢ².
			vav := 0.0
			for c := 0; c < m; c++ {
				vav += col[c] * av.At(c, j)
			}
			wii := alpha*alpha - (1/lam - vav/(lam*lam))
			trW += wii
			row := g.RawRowView(j)
			for c := range row {
				row[c] = alpha*ba.AtVec(c) - row[c]/lam - wii*b.At(c, j)
			}
			k.GradHyper(tmp, xi, xi)
			for h := range gsum {
				gsum[h] += 0.5 * wii * tmp[h]
			}
		}
		ContractCross(tmp, k, xb, z, g)
		for h := range gsum {
			gsum[h] += tmp[h]
		}
		var bg mat.Dense
		bg.Mul(&b, g)
		g2.Add(g2, &bg)
		return nil
	})
	if err != nil {
		return 0, err
	}
	g2s := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			g2s.SetSym(i, j, 0.5*(g2.At(i, j)+g2.At(j, i)))
		}
	}
	Contract(tmp, k, z, g2s)
	for h := range gsum {
		grad[h] = gsum[h] - tmp[h]
	}
	grad[nh] = 0.5 * trW
	return lml, nil
}

// fitcState is FITC's first pass: sgprStats with la the factor of
// A = I + VΛ⁻¹Vᵀ (a itself kept) and w = A⁻¹u, u = VΛ⁻¹y, log|Λ| and
// yᵀΛ⁻¹y, and λᵢ of column j of a block's V.
type fitcState struct {
	*sgprStats
	a           *mat.SymDense
	u           []float64
	logLam, yly float64
	lambda      func(v *mat.Dense, j int, xi []float64) float64
}

func fitcPass(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) (*fitcState, error) {
	s, err := newStats(k, x, z, y)
	if err != nil {
		return nil, err
	}
	m := s.m
	// Pass 1: A − I = Σᵢ VᵢVᵢᵀ/λᵢ, u = Σᵢ Vᵢyᵢ/λᵢ, log|Λ|, yᵀΛ⁻¹y.
	a := mat.NewSymDense(m, nil)
	u := make([]float64, m)
	var logLam, yly float64
	// lambda returns λᵢ = k(xᵢ, xᵢ) − |Vᵢ|² + σ² for column j of v, row i.
	lambda := func(v *mat.Dense, j int, xi []float64) float64 {
		q := 0.0
		for c := 0; c < m; c++ {
			t := v.At(c, j)
			q += t * t
		}
		return math.Max(k.Eval(xi, xi)-q, 0) + noise
	}
	err = blocks(x, func(i0, i1 int, xb *mat.Dense) error {
		v, err := s.blockV(k, z, xb)
		if err != nil {
			return err
		}
		vs := mat.DenseCopyOf(v)
		for j := 0; j < i1-i0; j++ {
			lam := lambda(v, j, x.RawRowView(i0+j))
			logLam += math.Log(lam)
			yi := y[i0+j]
			yly += yi * yi / lam
			r := 1 / math.Sqrt(lam)
			for c := 0; c < m; c++ {
				u[c] += v.At(c, j) * yi / lam
				vs.Set(c, j, v.At(c, j)*r)
			}
		}
		a.SymRankK(a, 1, vs)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := 0; i < m; i++ {
		a.SetSym(i, i, a.At(i, i)+1)
	}
	if !s.la.Factorize(a) {
		return nil, ErrNotPD
	}
	wv := mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(s.la.SolveVecTo(wv, mat.NewVecDense(m, u))); err != nil {
		return nil, err
	}
	s.w = wv.RawVector().Data
	return &fitcState{sgprStats: s, a: a, u: u, logLam: logLam, yly: yly, lambda: lambda}, nil
}

// FITCPredict is FITC's predictive of f at the rows of xnew
// (Quiñonero-Candela and Rasmussen 2005, eq. 20): mean K_*z Σ K_zn Λ⁻¹y and
// variance k_** − Q_** + K_*z Σ K_z*, Σ = (K_zz + K_zn Λ⁻¹ K_nz)⁻¹, that is
// V_*ᵀA⁻¹u and k_** − V_*ᵀV_* + V_*ᵀA⁻¹V_* in FITCLogMarginal's terms.
func FITCPredict(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64, xnew *mat.Dense) (mean, fvar []float64, err error) {
	if !(noise > 0) {
		return nil, nil, fmt.Errorf("gp: the noise variance must be positive, got %g", noise)
	}
	if fk, err := sparseFast(k, x, z, y); err != nil || fk != nil {
		if err != nil {
			return nil, nil, err
		}
		f, linv, err := fitcFastPass(fk, k, x, z, y, noise)
		if err != nil {
			return nil, nil, err
		}
		return f.predictFast(k, linv, z, xnew, 1)
	}
	f, err := fitcPass(k, x, z, y, noise)
	if err != nil {
		return nil, nil, err
	}
	return f.predict(k, z, xnew, 1)
}
