package gp

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/progress"
)

// SVGP is a stochastic variational GP (Hensman, Matthews and Ghahramani
// 2015, "Scalable variational Gaussian process classification"; GPflow's
// SVGP with whitening): a latent f ~ GP(0, k) observed through a
// likelihood P(y_i | f_i), approximated through m inducing points Z with
// whitened inducing variables u = L v (K_zz = LLᵀ) and the variational
// distribution q(v) = N(μ_v, S), so that q(f_i) = N(μ_i, σ²_i) with
//
//	μ_i = a_iᵀμ_v,  σ²_i = k(x_i, x_i) − a_iᵀa_i + a_iᵀS a_i,  a_i = L⁻¹k_z(x_i),
//
// and the evidence lower bound
//
//	ELBO = Σ_i E_q(f_i)[log P(y_i | f_i)] − KL(q(v) ‖ N(0, I))
//
// (each expectation by Gauss–Hermite quadrature, in closed form for the
// normal and Poisson likelihoods), estimated on a minibatch B by scaling its sum by
// n/|B|. q(v) is kept in natural form, precision Λ = S⁻¹ and b = Λμ_v,
// and moved by natural-gradient steps (Hensman, Fusi and Lawrence 2013;
// Salimbeni, Eleftheriadis and Hensman 2018): with g_i = ∂E_i/∂μ_i and
// h_i = ∂E_i/∂σ²_i on the batch and c = n/|B|,
//
//	Λ ← (1 − γ)Λ + γ(I + c Σ_B (−2h_i) a_i a_iᵀ),
//	b ← (1 − γ)b + γ c Σ_B (g_i − 2h_i μ_i) a_i,
//
// which for a normal likelihood on the full batch with γ = 1 lands on the
// optimal q(v), the exact posterior when Z = X. The kernel's (and the
// likelihood's) parameters take Adam steps (Kingma and Ba 2015) on their
// logarithms with the ELBO's exact gradient at fixed q(v) (derived at
// grad below), on the same batch. Each step costs O(|B|m² + m³)
// time and O(|B|m + m²) memory, whatever n is.
type SVGP struct {
	// K is the kernel, and Lik the likelihood, at their current
	// parameters (Fit moves them when its LR is positive).
	K   kernels.Kernel
	Lik Lik
	// Z are the inducing points, one per row.
	Z *mat.Dense
	// Lam and B are q(v) in natural form: q(v) = N(Λ⁻¹b, Λ⁻¹).
	Lam *mat.SymDense
	B   []float64
	// Trace holds the minibatch estimates of the ELBO, one per step of
	// Fit (before the step's update).
	Trace []float64
	// loop is the last Fit's Adam and minibatch state, which a resumed
	// Fit continues.
	loop *svgpLoop[float64]
}

// SVGPSettings are the settings of SVGP.Fit.
type SVGPSettings struct {
	// Batch is the number of rows per minibatch (0, or at least n: every
	// row at every step).
	Batch int
	// Steps is the number of steps.
	Steps int
	// Gamma is the natural-gradient step size for q(v), in (0, 1].
	Gamma float64
	// LR is Adam's step size for the logarithms of the kernel's positive
	// hyperparameters and the likelihood's parameters (0: all held).
	LR float64
	// Quad is the number of Gauss–Hermite nodes per expectation.
	Quad int
	// Seed seeds the shuffles of the rows into minibatches.
	Seed uint64
	// Learn, when not nil, says which of the kernel's hyperparameters then
	// the likelihood's parameters Adam moves (each must be positive);
	// nil: every positive one.
	Learn []bool
	// Resume continues the previous Fit: its Adam moments and step count
	// and its place in the minibatches' shuffles, so that Steps a then
	// Steps b give what one Fit of a + b steps gives, to the bit. It needs
	// the same rows, Batch, Quad, Seed and Learn; Steps, Gamma and LR may
	// change. Without it a Fit starts Adam and the shuffles afresh (from
	// q(v) and the parameters as they are).
	Resume bool
}

// DefaultSVGPQuad is the Gauss–Hermite rule's nodes when Quad is 0: as
// GPflow's default.
const DefaultSVGPQuad = 20

// NewSVGP returns the SVGP of kernel k and likelihood l through inducing
// points z, with q(v) = N(0, I), the prior.
func NewSVGP(k kernels.Kernel, l Lik, z *mat.Dense) (*SVGP, error) {
	if err := l.checkSVGP(); err != nil {
		return nil, err
	}
	m, _ := z.Dims()
	lam := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		lam.SetSym(i, i, 1)
	}
	return &SVGP{K: k, Lik: l, Z: z, Lam: lam, B: make([]float64, m)}, nil
}

// svgpState is what every batch at one kernel and one q(v) reads: the
// factors of K_zz and Λ and the mean μ_v.
type svgpState struct {
	m  int
	L  mat.TriDense // K_zz (+ jitter) = LLᵀ
	LQ mat.TriDense // Λ = L_Λ L_Λᵀ
	lq mat.Cholesky
	mv []float64 // μ_v = Λ⁻¹b
}

// state factors K_zz at kernel k (jittered as SGPR's is) and Λ.
func (s *SVGP) state(k kernels.Kernel) (*svgpState, error) {
	m, _ := s.Z.Dims()
	kzz, err := kernels.Gram(k, s.Z)
	if err != nil {
		return nil, err
	}
	st := &svgpState{m: m}
	var lz mat.Cholesky
	if _, ok := linalg.CholeskyJitter(&lz, kzz, true); !ok {
		return nil, ErrNotPD
	}
	lz.LTo(&st.L)
	if !st.lq.Factorize(s.Lam) {
		return nil, fmt.Errorf("gp: SVGP's q(v) precision is not positive definite")
	}
	st.lq.LTo(&st.LQ)
	mv := mat.NewVecDense(m, nil)
	if err := linalg.IgnoreCondition(st.lq.SolveVecTo(mv, mat.NewVecDense(m, s.B))); err != nil {
		return nil, err
	}
	st.mv = mv.RawVector().Data
	return st, nil
}

// kl is KL(q(v) ‖ N(0, I)) = ½(tr S + μ_vᵀμ_v − m + log|Λ|).
func (st *svgpState) kl() (float64, error) {
	m := st.m
	eye := mat.NewDiagDense(m, nil)
	for i := 0; i < m; i++ {
		eye.SetDiag(i, 1)
	}
	var inv mat.Dense // L_Λ⁻¹
	if err := linalg.IgnoreCondition(inv.Solve(&st.LQ, eye)); err != nil {
		return 0, err
	}
	tr := mat.Norm(&inv, 2)
	return 0.5 * (tr*tr + linalg.Dot(st.mv, st.mv) - float64(m) + st.lq.LogDet()), nil
}

// svgpAcc accumulates a pass over batches: the scaled expected log
// likelihood, the natural-gradient targets and the gradient's pieces.
type svgpAcc struct {
	ell float64
	// prec = c Σ (−2h_i) a_i a_iᵀ and lin = c Σ (g_i − 2h_iμ_i) a_i, when
	// a natural-gradient step is wanted.
	prec *mat.SymDense
	lin  []float64
	// With the gradient: dk the kernel's direct terms (through K_xz and
	// k(x_i, x_i)), pa = c Σ P Aᵀ for the term through L, dlik the
	// likelihood's parameters.
	dk   []float64
	pa   *mat.Dense
	dlik []float64
}

func (s *SVGP) newAcc(k kernels.Kernel, nat, grad bool) *svgpAcc {
	m, _ := s.Z.Dims()
	a := &svgpAcc{dlik: make([]float64, len(s.Lik.Params))}
	if nat {
		a.prec, a.lin = mat.NewSymDense(m, nil), make([]float64, m)
	}
	if grad {
		a.dk, a.pa = make([]float64, k.NumHyper()), mat.NewDense(m, m, nil)
	}
	return a
}

// batch adds the rows xb (observations yb) to acc with weight c.
func (s *SVGP) batch(st *svgpState, k kernels.Kernel, rule ghRule, xb *mat.Dense, yb []float64, c float64, acc *svgpAcc) error {
	m, nb := st.m, len(yb)
	kzb, err := kernels.Cross(k, s.Z, xb)
	if err != nil {
		return err
	}
	for _, v := range kzb.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ErrNonFinite
		}
	}
	var a, t mat.Dense // A = L⁻¹K_zb, T = L_Λ⁻¹A
	if err := linalg.IgnoreCondition(a.Solve(&st.L, kzb)); err != nil {
		return err
	}
	if err := linalg.IgnoreCondition(t.Solve(&st.LQ, &a)); err != nil {
		return err
	}
	mu := make([]float64, nb)
	vr := make([]float64, nb)
	for i := 0; i < nb; i++ {
		xi := xb.RawRowView(i)
		vr[i] = k.Eval(xi, xi)
	}
	for r := 0; r < m; r++ {
		ar, tr := a.RawRowView(r), t.RawRowView(r)
		w := st.mv[r]
		for i := 0; i < nb; i++ {
			mu[i] += w * ar[i]
			vr[i] += tr[i]*tr[i] - ar[i]*ar[i]
		}
	}
	g := make([]float64, nb)
	h := make([]float64, nb)
	dl := make([]float64, len(acc.dlik))
	for i := 0; i < nb; i++ {
		vr[i] = math.Max(vr[i], 0)
		var e float64
		e, g[i], h[i] = s.Lik.expected(rule, yb[i], mu[i], vr[i], dl)
		acc.ell += c * e
	}
	for j := range dl {
		acc.dlik[j] += c * dl[j]
	}
	acc.natural(m, &a, mu, g, h, c)
	if acc.dk == nil {
		return nil
	}
	return s.gradPieces(st, k, &a, &t, xb, g, h, c, acc)
}

// natural adds the batch's natural-gradient targets to acc (when it
// wants them): prec += c A diag(−2h) Aᵀ and lin += c A (g − 2h∘μ), for
// A = L⁻¹K_zb (m rows) and the batch's q(f) means mu and derivatives g, h.
func (acc *svgpAcc) natural(m int, a *mat.Dense, mu, g, h []float64, c float64) {
	nb := len(g)
	if acc.prec != nil {
		// prec += c A diag(−2h) Aᵀ, as SYRKs of the columns scaled by
		// the root of their positive and negative weights.
		var pos, neg *mat.Dense
		for i := 0; i < nb; i++ {
			w := -2 * c * h[i]
			if w < 0 && neg == nil {
				neg = mat.NewDense(m, nb, nil)
			}
		}
		pos = mat.NewDense(m, nb, nil)
		for r := 0; r < m; r++ {
			ar, pr := a.RawRowView(r), pos.RawRowView(r)
			var nr []float64
			if neg != nil {
				nr = neg.RawRowView(r)
			}
			lin := 0.0
			for i := 0; i < nb; i++ {
				w := -2 * c * h[i]
				if w >= 0 {
					pr[i] = math.Sqrt(w) * ar[i]
				} else {
					nr[i] = math.Sqrt(-w) * ar[i]
				}
				lin += c * (g[i] - 2*h[i]*mu[i]) * ar[i]
			}
			acc.lin[r] += lin
		}
		acc.prec.SymRankK(acc.prec, 1, pos)
		if neg != nil {
			acc.prec.SymRankK(acc.prec, -1, neg)
		}
	}
}

// gradPieces adds the batch's part of the gradient in the kernel's
// hyperparameters to acc (dk and pa), for A = L⁻¹K_zb, T = L_Λ⁻¹A and the
// derivatives g, h of the expectations, with weight c. It is linear in
// (g, h), so the classes of a multi-class fit, which share A, each add
// theirs.
func (s *SVGP) gradPieces(st *svgpState, k kernels.Kernel, a, t, xb *mat.Dense, g, h []float64, c float64, acc *svgpAcc) error {
	m, nb := st.m, len(g)
	// P = c(μ_v gᵀ + 2(S − I)A H), with S A = L_Λ⁻ᵀT.
	var sa mat.Dense
	if err := linalg.IgnoreCondition(sa.Solve(st.LQ.T(), t)); err != nil {
		return err
	}
	p := mat.NewDense(m, nb, nil)
	for r := 0; r < m; r++ {
		pr, sr, ar := p.RawRowView(r), sa.RawRowView(r), a.RawRowView(r)
		w := st.mv[r]
		for i := 0; i < nb; i++ {
			pr[i] = c * (w*g[i] + 2*h[i]*(sr[i]-ar[i]))
		}
	}
	// Through K_zb: Σ (L⁻ᵀP)_{ai} ∂k(z_a, x_i).
	var lp mat.Dense
	if err := linalg.IgnoreCondition(lp.Solve(st.L.T(), p)); err != nil {
		return err
	}
	tmp := make([]float64, len(acc.dk))
	ContractCross(tmp, k, s.Z, xb, &lp)
	for j := range tmp {
		acc.dk[j] += tmp[j]
	}
	// Through k(x_i, x_i): c Σ h_i ∂k(x_i, x_i).
	for i := 0; i < nb; i++ {
		xi := xb.RawRowView(i)
		k.GradHyper(tmp, xi, xi)
		for j := range tmp {
			acc.dk[j] += c * h[i] * tmp[j]
		}
	}
	// Through L: PAᵀ, finished by svgpGrad.
	var pa mat.Dense
	pa.Mul(p, a.T())
	acc.pa.Add(acc.pa, &pa)
	return nil
}

// grad finishes the gradient in k's hyperparameters then the likelihood's
// parameters into grad. With B = Σ PAᵀ and B̃ its lower triangle mirrored,
// the part of ∂ELBO through the factor L of K_zz (∂A = −L⁻¹∂L A,
// L⁻¹∂L = Φ(L⁻¹∂K_zz L⁻ᵀ), Φ the lower triangle with half the diagonal) is
// −½⟨∂K_zz, L⁻ᵀB̃L⁻¹⟩, a contraction with W = −L⁻ᵀB̃L⁻¹. The KL term does
// not depend on the kernel: that is what whitening buys.
func (s *SVGP) grad(st *svgpState, k kernels.Kernel, acc *svgpAcc, grad []float64) error {
	m := st.m
	bt := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			bt.SetSym(i, j, acc.pa.At(i, j))
		}
	}
	var x, w mat.Dense // x = L⁻ᵀB̃, w = xL⁻¹ = (L⁻ᵀxᵀ)ᵀ
	if err := linalg.IgnoreCondition(x.Solve(st.L.T(), bt)); err != nil {
		return err
	}
	if err := linalg.IgnoreCondition(w.Solve(st.L.T(), x.T())); err != nil {
		return err
	}
	ws := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			ws.SetSym(i, j, -0.5*(w.At(i, j)+w.At(j, i)))
		}
	}
	nh := k.NumHyper()
	Contract(grad[:nh], k, s.Z, ws)
	for j := range acc.dk {
		grad[j] += acc.dk[j]
	}
	copy(grad[nh:], acc.dlik)
	return nil
}

// svgpBlock is the number of rows per block of a full pass (Bound,
// Predict), so that memory is O(m·svgpBlock) whatever n is.
var svgpBlock = 2048

// inBlocks calls f on the row blocks [i0, i1) of n rows, svgpBlock rows at
// a time, checking ctx and the interrupt before each: a step over every
// row of 10⁵ is then as prompt to stop on Ctrl-C as a minibatch step (one
// block is a few milliseconds at m = 512).
func inBlocks(ctx context.Context, n int, f func(i0, i1 int) error) error {
	for i0 := 0; i0 < n; i0 += svgpBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		interrupt.Check()
		if err := f(i0, min(i0+svgpBlock, n)); err != nil {
			return err
		}
	}
	return nil
}

// Bound is the ELBO over all the rows of x (observations y) at the current
// kernel, likelihood and q(v), computed in row blocks, with, when grad is
// not nil, its gradient in k's hyperparameters then the likelihood's
// parameters at fixed q(v), written to grad. quad is the Gauss–Hermite
// rule's nodes (0: DefaultSVGPQuad).
func (s *SVGP) Bound(x *mat.Dense, y []float64, quad int, grad []float64) (float64, error) {
	n, d := x.Dims()
	if len(y) != n {
		return 0, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if quad <= 0 {
		quad = DefaultSVGPQuad
	}
	rule := newGH(quad)
	st, err := s.state(s.K)
	if err != nil {
		return 0, err
	}
	acc := s.newAcc(s.K, false, grad != nil)
	if err := inBlocks(context.Background(), n, func(i0, i1 int) error {
		return s.batch(st, s.K, rule, x.Slice(i0, i1, 0, d).(*mat.Dense), y[i0:i1], 1, acc)
	}); err != nil {
		return 0, err
	}
	kl, err := st.kl()
	if err != nil {
		return 0, err
	}
	if grad != nil {
		if err := s.grad(st, s.K, acc, grad); err != nil {
			return 0, err
		}
	}
	return acc.ell - kl, nil
}

// natStep moves q(v) by a natural-gradient step of size gamma towards the
// targets in acc, halving gamma (at most 20 times) while the new precision
// is not positive definite (a likelihood that is not log-concave, the
// Student-t, can make −2h_i negative). It returns the step taken.
func (s *SVGP) natStep(acc *svgpAcc, gamma float64) (float64, error) {
	m := len(s.B)
	next := mat.NewSymDense(m, nil)
	var ch mat.Cholesky
	for range 20 {
		next.ScaleSym(gamma, acc.prec)
		for i := 0; i < m; i++ {
			next.SetSym(i, i, next.At(i, i)+gamma)
		}
		var old mat.SymDense
		old.ScaleSym(1-gamma, s.Lam)
		next.AddSym(next, &old)
		if ch.Factorize(next) {
			s.Lam = next
			for i := range s.B {
				s.B[i] = (1-gamma)*s.B[i] + gamma*acc.lin[i]
			}
			return gamma, nil
		}
		gamma /= 2
	}
	return 0, fmt.Errorf("gp: SVGP's natural-gradient step leaves q(v)'s precision indefinite even at step size %g", gamma)
}

// SVGPResult says how a Fit went.
type SVGPResult struct {
	// Batch is the minibatch size used (n for full batches), Epochs the
	// passes over the data the steps made.
	Batch  int
	Epochs float64
	// ELBO is the bound over all rows at the end.
	ELBO float64
	// Steps counts the steps of this Fit and of those it resumed.
	Steps int
}

// Fit runs set.Steps steps on the rows of x (observations y, labels in
// {−1, 1} for the logistic): each step draws the next minibatch of a
// seeded shuffle of the rows (reshuffled after each pass; full batches
// when Batch is 0 or at least n), takes a natural-gradient step for q(v)
// and, when set.LR > 0, an Adam step (β₁ = 0.9, β₂ = 0.999, ε = 10⁻⁸) for
// the logarithms of the kernel's positive hyperparameters and of the
// likelihood's parameters, both from the ELBO estimate at the step's
// start. It checks ctx and the interrupt at every step and counts the
// steps on a progress task. The ELBO over all rows at the end is in the
// result.
func (s *SVGP) Fit(ctx context.Context, x *mat.Dense, y []float64, set SVGPSettings) (*SVGPResult, error) {
	n, d := x.Dims()
	if len(y) != n {
		return nil, fmt.Errorf("gp: %d observations for %d input rows", len(y), n)
	}
	if err := s.Lik.check(y); err != nil {
		return nil, err
	}
	if err := set.check(); err != nil {
		return nil, err
	}
	quad := set.Quad
	if quad <= 0 {
		quad = DefaultSVGPQuad
	}
	rule := newGH(quad)
	// The learnt parameters: logs of the kernel's positive hyperparameters
	// and of the likelihood's parameters.
	nh := s.K.NumHyper()
	set.Quad = quad
	loop, err := startLoop(s.loop, x, y, append(s.K.Hyper(nil), s.Lik.Params...), set)
	if err != nil {
		return nil, err
	}
	// A Fit that fails half-way leaves nothing to resume.
	s.loop = nil
	batches, adam := loop.batches, loop.adam
	b := batches.b
	grad := make([]float64, len(adam.learn))
	task := progress.Start(ctx, "steps", set.Steps)
	defer task.Done()
	for step := 1; step <= set.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		interrupt.Check()
		bx, by := batches.next()
		st, err := s.state(s.K)
		if err != nil {
			return nil, fmt.Errorf("gp: SVGP step %d: %v (kernel %s)", step, err, s.K)
		}
		acc := s.newAcc(s.K, true, set.LR > 0)
		if err := inBlocks(ctx, b, func(i0, i1 int) error {
			return s.batch(st, s.K, rule, bx.Slice(i0, i1, 0, d).(*mat.Dense), by[i0:i1], float64(n)/float64(b), acc)
		}); err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, fmt.Errorf("gp: SVGP step %d: %v (kernel %s)", step, err, s.K)
		}
		kl, err := st.kl()
		if err != nil {
			return nil, err
		}
		s.Trace = append(s.Trace, acc.ell-kl)
		if set.LR > 0 {
			if err := s.grad(st, s.K, acc, grad); err != nil {
				return nil, err
			}
		}
		if _, err := s.natStep(acc, set.Gamma); err != nil {
			return nil, err
		}
		if set.LR > 0 {
			par := append(s.K.Hyper(nil), s.Lik.Params...)
			adam.step(par, grad, set.LR)
			k, err := s.K.WithHyper(par[:nh])
			if err != nil {
				return nil, fmt.Errorf("gp: SVGP step %d: %v", step, err)
			}
			s.K = k
			s.Lik.Params = append([]float64(nil), par[nh:]...)
		}
		task.Add(1)
	}
	elbo, err := s.Bound(x, y, quad, nil)
	if err != nil {
		return nil, err
	}
	loop.steps += set.Steps
	s.loop = loop
	return &SVGPResult{Batch: b, Epochs: float64(set.Steps) * float64(b) / float64(n), ELBO: elbo, Steps: loop.steps}, nil
}

// Clone is an independent copy of s, which a resumed Fit of it leaves
// unchanged: q(v), the parameters, the trace and the state a Fit resumes
// are copied (the kernel and the inducing points are not written by a
// Fit, and are shared).
func (s *SVGP) Clone() *SVGP {
	c := &SVGP{K: s.K, Lik: s.Lik, Z: s.Z, Lam: mat.NewSymDense(len(s.B), nil), B: slices.Clone(s.B), Trace: slices.Clone(s.Trace)}
	c.Lik.Params = slices.Clone(s.Lik.Params)
	c.Lam.CopySym(s.Lam)
	c.loop = s.loop.clone()
	return c
}

// Predict is q(f) at the rows of xnew, its means and variances, in row
// blocks.
func (s *SVGP) Predict(xnew *mat.Dense) (mean, fvar []float64, err error) {
	st, err := s.state(s.K)
	if err != nil {
		return nil, nil, err
	}
	p, d := xnew.Dims()
	mean, fvar = make([]float64, p), make([]float64, p)
	m := st.m
	for i0 := 0; i0 < p; i0 += svgpBlock {
		interrupt.Check()
		i1 := min(i0+svgpBlock, p)
		xb := xnew.Slice(i0, i1, 0, d).(*mat.Dense)
		kzb, err := kernels.Cross(s.K, s.Z, xb)
		if err != nil {
			return nil, nil, err
		}
		var a, t mat.Dense
		if err := linalg.IgnoreCondition(a.Solve(&st.L, kzb)); err != nil {
			return nil, nil, err
		}
		if err := linalg.IgnoreCondition(t.Solve(&st.LQ, &a)); err != nil {
			return nil, nil, err
		}
		for i := i0; i < i1; i++ {
			xi := xnew.RawRowView(i)
			fvar[i] = s.K.Eval(xi, xi)
		}
		for r := 0; r < m; r++ {
			ar, tr := a.RawRowView(r), t.RawRowView(r)
			w := st.mv[r]
			for j := range ar {
				mean[i0+j] += w * ar[j]
				fvar[i0+j] += tr[j]*tr[j] - ar[j]*ar[j]
			}
		}
		for i := i0; i < i1; i++ {
			fvar[i] = math.Max(fvar[i], 0)
		}
	}
	return mean, fvar, nil
}

// PosteriorU is q(u) = N(Lμ_v, LSLᵀ), the unwhitened inducing variables'
// distribution at the current kernel.
func (s *SVGP) PosteriorU() (mean []float64, cov *mat.SymDense, err error) {
	st, err := s.state(s.K)
	if err != nil {
		return nil, nil, err
	}
	m := st.m
	var mu mat.VecDense
	mu.MulVec(&st.L, mat.NewVecDense(m, st.mv))
	var lt mat.Dense // L_Λ⁻¹Lᵀ
	if err := linalg.IgnoreCondition(lt.Solve(&st.LQ, st.L.T())); err != nil {
		return nil, nil, err
	}
	cov = mat.NewSymDense(m, nil)
	cov.SymOuterK(1, lt.T())
	return mu.RawVector().Data, cov, nil
}
