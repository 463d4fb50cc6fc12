package gp

import (
	"context"
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// DoubleLoop is the paper's Algorithm 1 for joint MAP (Kind MAP) and MKL
// (Kind MKL) with a linearly parametrised kernel K_θ = Σ_m θ_m K_m + εI,
// θ ≥ 0: it minimises ψ(θ, u) = uᵀK_θ⁻¹u − 2 log P(y | u) + ρ(θ), with
// ρ = log|K_θ| (MAP) or λ Σ_m θ_mᵖ (MKL), jointly over (θ, u). Each outer
// iteration refits the linear upper bound of the concave log|K_θ|,
// λ = ∇_θ log|K_θ| = [tr(K_θ⁻¹K_m)]_m (for MKL the regulariser's own
// gradient), takes one joint Newton step on the jointly convex
// ψ̃ + λᵀθ — Newton's method without the log|K_θ| part of the Hessian — and
// a backtracking line search on ψ itself. θ ≥ 0 is kept by the log
// barrier tψ − Σ_m log θ_m, t growing tenfold whenever a step is small,
// until M/t is below the tolerance.
//
// The likelihood l must be smooth: Normal (Params [σ]) or Logit; the
// Laplace likelihood's kink has no Newton step. Values are on the paper's
// scale (ψ, to be minimised); −½ψ minus the constants is the objective that
// Gaussian and NonGaussian return.
type DoubleLoop struct {
	Ks []*mat.SymDense
	// Fixed, when not nil, is a kernel matrix added to K_θ with no weight
	// (a noise floor): joint MAP needs one, or log|K_θ| → −∞ as θ → 0.
	Fixed  *mat.SymDense
	Y      []float64
	Lik    Lik
	Kind   Kind
	P      float64 // MKL's p (default 1)
	Lambda float64 // MKL's λ
	// Tol ends the run when the barrier's gap M/t and the Newton
	// decrement are below it; default 1e-8.
	Tol float64
	// Penalty, when not nil, is a smooth term R(θ) added to ψ (joint
	// MAP's −2 log p(θ) under the weights' priors), with its gradient and
	// a non-negative diagonal curvature for the Newton step (the line
	// search is on ψ + R itself, so the curvature need only keep the step
	// one of descent).
	Penalty func(theta []float64) (v float64, grad, curv []float64)
	// Ctx, when not nil, is checked at every outer iteration.
	Ctx context.Context
}

// DoubleLoopResult is where Algorithm 1 ended.
type DoubleLoopResult struct {
	Theta, U []float64
	// Psi is ψ at (θ, u), without the barrier.
	Psi float64
	// Outer counts the outer iterations (each one Newton step and line
	// search); Evals the evaluations of ψ.
	Outer, Evals int
	// Converged says the barrier's gap M/t fell below the tolerance with
	// the surrogate centred, rather than the 500 outer iterations running
	// out.
	Converged bool
}

// Normal is a Gaussian likelihood N(y | u, σ²), Params [σ], for
// DoubleLoop.
const Normal LikKind = Logit + 1

// negLog2 returns −2 log P(y | u) and its first and second derivatives in u.
func (l Lik) negLog2(y, u float64) (v, g, h float64) {
	switch l.Kind {
	case Normal:
		s2 := l.Params[0] * l.Params[0]
		r := u - y
		return r*r/s2 + math.Log(2*math.Pi*s2), 2 * r / s2, 2 / s2
	case Logit:
		sp := 1 / (1 + math.Exp(y*u)) // σ(−yu)
		return -2 * logSigmoid(y*u), -2 * y * sp, 2 * sp * (1 - sp)
	}
	panic("gp: DoubleLoop needs a Normal or Logit likelihood")
}

// ErrNewton is returned when the joint Newton system is singular.
var ErrNewton = errors.New("gp: the joint Newton system is not positive definite")

// Run starts at θ = theta0 (all positive) and u = 0.
func (dl *DoubleLoop) Run(theta0 []float64) (*DoubleLoopResult, error) {
	n, M := len(dl.Y), len(dl.Ks)
	tol := dl.Tol
	if tol <= 0 {
		tol = 1e-8
	}
	p := dl.P
	if p == 0 {
		p = 1
	}
	theta := append([]float64(nil), theta0...)
	u := make([]float64, n)
	res := &DoubleLoopResult{}
	// psi returns ψ at (θ, u) and the factor of K_θ.
	kth := mat.NewSymDense(n, nil)
	psi := func(theta, u []float64) (float64, *mat.Cholesky, bool) {
		res.Evals++
		kth.Zero()
		if dl.Fixed != nil {
			kth.CopySym(dl.Fixed)
		}
		for m, K := range dl.Ks {
			kth.AddSym(kth, scaledSym(K, theta[m]))
		}
		for i := 0; i < n; i++ {
			kth.SetSym(i, i, kth.At(i, i)+MapJitter)
		}
		var ch mat.Cholesky
		if !ch.Factorize(kth) {
			return math.Inf(1), nil, false
		}
		alpha := mat.NewVecDense(n, nil)
		if linalg.IgnoreCondition(ch.SolveVecTo(alpha, mat.NewVecDense(n, u))) != nil {
			return math.Inf(1), nil, false
		}
		v := mat.Dot(alpha, mat.NewVecDense(n, u))
		for i := range u {
			lv, _, _ := dl.Lik.negLog2(dl.Y[i], u[i])
			v += lv
		}
		if dl.Kind == MAP {
			v += ch.LogDet()
		} else {
			for _, th := range theta {
				v += dl.Lambda * math.Pow(th, p)
			}
		}
		if dl.Penalty != nil {
			pv, _, _ := dl.Penalty(theta)
			v += pv
		}
		return v, &ch, true
	}
	barrier := func(t, v float64, theta []float64) float64 {
		b := t * v
		for _, th := range theta {
			b -= math.Log(th)
		}
		return b
	}
	t := 1.0
	cur, ch, ok := psi(theta, u)
	if !ok {
		return nil, ErrNotPD
	}
	dim := n + M
	grad := make([]float64, dim)
	hess := mat.NewSymDense(dim, nil)
	for res.Outer = 1; res.Outer <= 500; res.Outer++ {
		if dl.Ctx != nil {
			if err := dl.Ctx.Err(); err != nil {
				return nil, err
			}
		}
		var pgrad, pcurv []float64
		if dl.Penalty != nil {
			_, pgrad, pcurv = dl.Penalty(theta)
		}
		// K⁻¹, α = K⁻¹u, b_m = K_mα, c_m = K⁻¹b_m.
		var kinv mat.SymDense
		if err := linalg.IgnoreCondition(ch.InverseTo(&kinv)); err != nil {
			return nil, err
		}
		uv := mat.NewVecDense(n, u)
		var alpha mat.VecDense
		alpha.MulVec(&kinv, uv)
		bs := make([]*mat.VecDense, M)
		cs := make([]*mat.VecDense, M)
		lam := make([]float64, M)
		for m, K := range dl.Ks {
			bs[m] = new(mat.VecDense)
			bs[m].MulVec(K, &alpha)
			cs[m] = new(mat.VecDense)
			cs[m].MulVec(&kinv, bs[m])
			if dl.Kind == MAP {
				// λ_m = tr(K⁻¹K_m), the refitted bound on log|K_θ|.
				lam[m] = traceProduct(&kinv, K)
			} else {
				lam[m] = dl.Lambda * p * math.Pow(theta[m], p-1)
			}
		}
		// The gradient and Hessian of t(ψ̃ + λᵀθ) − Σ log θ over [u; θ].
		hess.Zero()
		for i := 0; i < n; i++ {
			_, g, h := dl.Lik.negLog2(dl.Y[i], u[i])
			grad[i] = t * (2*alpha.AtVec(i) + g)
			for j := i; j < n; j++ {
				v := 2 * t * kinv.At(i, j)
				if i == j {
					v += t * h
				}
				hess.SetSym(i, j, v)
			}
		}
		for m := 0; m < M; m++ {
			grad[n+m] = t*(-mat.Dot(&alpha, bs[m])+lam[m]) - 1/theta[m]
			if pgrad != nil {
				grad[n+m] += t * pgrad[m]
			}
			for i := 0; i < n; i++ {
				hess.SetSym(i, n+m, -2*t*cs[m].AtVec(i))
			}
			for l := m; l < M; l++ {
				v := 2 * t * mat.Dot(bs[m], cs[l])
				if l == m {
					v += 1 / (theta[m] * theta[m])
					if dl.Kind == MKL && p != 1 {
						v += t * dl.Lambda * p * (p - 1) * math.Pow(theta[m], p-2)
					}
					if pcurv != nil {
						v += t * math.Max(pcurv[m], 0)
					}
				}
				hess.SetSym(n+m, n+l, v)
			}
		}
		var hc mat.Cholesky
		if !hc.Factorize(hess) {
			return nil, ErrNewton
		}
		d := mat.NewVecDense(dim, nil)
		if err := linalg.IgnoreCondition(hc.SolveVecTo(d, mat.NewVecDense(dim, grad))); err != nil {
			return nil, err
		}
		d.ScaleVec(-1, d)
		dec := -mat.Dot(d, mat.NewVecDense(dim, grad)) // Newton decrement²
		// Backtracking on the barrier objective, keeping θ > 0.
		step := 1.0
		for m := 0; m < M; m++ {
			if dm := d.AtVec(n + m); dm < 0 {
				step = math.Min(step, -0.99*theta[m]/dm)
			}
		}
		f0 := barrier(t, cur, theta)
		nu := make([]float64, n)
		nth := make([]float64, M)
		accepted := false
		var fnew float64
		for range 60 {
			for i := range nu {
				nu[i] = u[i] + step*d.AtVec(i)
			}
			for m := range nth {
				nth[m] = theta[m] + step*d.AtVec(n+m)
			}
			v, nch, ok := psi(nth, nu)
			if ok && barrier(t, v, nth) <= f0-1e-4*step*dec {
				fnew = barrier(t, v, nth)
				copy(u, nu)
				copy(theta, nth)
				cur, ch, accepted = v, nch, true
				break
			}
			step /= 2
		}
		// Centred for this t when the step no longer helps: the surrogate's
		// decrement is small, or (its Hessian lacks log|K_θ|'s curvature)
		// the barrier objective stopped falling.
		if !accepted || dec/2 < tol || f0-fnew <= tol*1e-2*(1+math.Abs(f0)) {
			if float64(M)/t < tol {
				res.Converged = true
				break
			}
			t *= 10
		}
	}
	res.Theta, res.U, res.Psi = theta, u, cur
	return res, nil
}

// scaledSym returns c·a as a new matrix.
func scaledSym(a *mat.SymDense, c float64) *mat.SymDense {
	out := mat.NewSymDense(a.SymmetricDim(), nil)
	out.ScaleSym(c, a)
	return out
}

// traceProduct is tr(AB) = Σᵢⱼ AᵢⱼBᵢⱼ for symmetric A and B (upper
// triangles read).
func traceProduct(a, b *mat.SymDense) float64 {
	ra, rb := a.RawSymmetric(), b.RawSymmetric()
	var tr float64
	for i := 0; i < ra.N; i++ {
		x, y := ra.Data[i*ra.Stride:], rb.Data[i*rb.Stride:]
		tr += x[i] * y[i]
		for j := i + 1; j < ra.N; j++ {
			tr += 2 * x[j] * y[j]
		}
	}
	return tr
}
