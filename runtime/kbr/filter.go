package kbr

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/progress"
)

// Filter is the KBR filter of §4.3 for a state-space model known only
// through a training sequence of states X_1..X_N and observations
// Y_1..Y_N. With n = N − 1 training pairs (X_i, Y_i), i ≤ n, and the
// successors X_{i+1}, the filter keeps weights α over X_1..X_n and at each
// new observation y
//
//	predicts  μ = (G_X + nεI)⁻¹ G_{XX⁺} α,   (G_{XX⁺})_ij = k_X(X_i, X_{j+1}),
//	updates   α = ΛG_Y((ΛG_Y)² + δI)⁻¹Λ k_Y(y),   Λ = diag(μ),
//
// the posterior at one step becoming the prior of the next (MATH.md §3).
// The first observation has no prior; it is conditioned by the conditional
// mean embedding, α = (G_Y + nεI)⁻¹ k_Y(y_1). After each update α is
// divided by its signed sum (Normalise; negative weights keep their sign)
// so that rounding and regularisation do not shrink or grow the weights
// step after step.
//
// That prediction is MATH.md's: the weights α move from each X_i to its
// successor X_{i+1} as they are (TransitionSample). The empirical operator
// form of the paper's derivation, Ĉ_{X⁺X}(Ĉ_XX + εI)⁻¹ applied to the
// posterior kernel mean, first smooths them: μ = (G_X + nεI)⁻¹ G_{XX⁺}
// (G_X + nεI)⁻¹ G_X α (TransitionOperator). The two agree as ε → 0.
//
// In low-rank mode (Settings.Rank > 0) the Gram matrix of all N states is
// factorised as LLᵀ (rows 1..n give L₁, rows 2..N give L₂) and that of
// the Y_i as L_YL_Yᵀ; then μ = L₁(L₁ᵀL₁ + nεI)⁻¹L₂ᵀα and the update is
// the r×r form of lowRankOp, so a step costs O(nr²) instead of O(n³).
// Transition names how the filter moves weights from one step to the next.
type Transition string

const (
	// TransitionSample moves α_i from X_i to X_{i+1} (MATH.md §3).
	TransitionSample Transition = "sample"
	// TransitionOperator applies the empirical transition operator,
	// smoothing α by (G_X + nεI)⁻¹G_X first.
	TransitionOperator Transition = "operator"
)

type Filter struct {
	X, Y   *mat.Dense // X_1..X_n, Y_1..Y_n
	XPlus  *mat.Dense // the successors X_2..X_N
	KX, KY kernels.Kernel
	s      Settings
	// exact: trans = (G_X + nεI)⁻¹G_{XX⁺}; low rank: trans = (L₁ᵀL₁ + nεI)⁻¹L₂ᵀ
	trans *mat.Dense
	l1    *mat.Dense // low rank only
	l2    *mat.Dense // low rank only: rows 2..N of the states' factor
	// smooth is nil for TransitionSample; exact: (G_X + nεI)⁻¹G_X; low
	// rank: (L₁ᵀL₁ + nεI)⁻¹L₁ᵀ, so that the smoothed α is L₁·smooth·α.
	smooth *mat.Dense
	gy     *mat.SymDense
	ly     *mat.Dense
	init   *CME
}

// NewFilter trains a filter on states and observations paired by row
// (time), at least 3 steps.
func NewFilter(states, obs *mat.Dense, kx, ky kernels.Kernel, s Settings, tr Transition) (*Filter, error) {
	return NewFilterContext(context.Background(), states, obs, kx, ky, s, tr)
}

// NewFilterContext is NewFilter stopped by ctx: it checks ctx between its
// stages (each Gram matrix, factorisation and solve, each a fraction of a
// second at n = 4000; a factorisation itself stops on the process's
// interrupt, see runtime/interrupt) and returns ctx.Err() once it is done.
func NewFilterContext(ctx context.Context, states, obs *mat.Dense, kx, ky kernels.Kernel, s Settings, tr Transition) (f *Filter, err error) {
	stage := func() error { return ctx.Err() }
	if err := s.check(); err != nil {
		return nil, err
	}
	if tr != TransitionSample && tr != TransitionOperator {
		return nil, fmt.Errorf("unknown transition %q (sample or operator)", tr)
	}
	if err := checkJoint(states, obs); err != nil {
		return nil, err
	}
	big, dx := states.Dims()
	_, dy := obs.Dims()
	if err := s.checkSize(big); err != nil {
		return nil, err
	}
	if big < 3 {
		return nil, fmt.Errorf("the training sequence needs at least 3 steps, got %d", big)
	}
	n := big - 1
	x := mat.DenseCopyOf(states.Slice(0, n, 0, dx))
	xplus := mat.DenseCopyOf(states.Slice(1, big, 0, dx))
	y := mat.DenseCopyOf(obs.Slice(0, n, 0, dy))
	f = &Filter{X: x, XPlus: xplus, Y: y, KX: kx, KY: ky, s: s}
	c := float64(n) * s.Eps
	if f.init, err = NewCME(x, y, ky, s); err != nil {
		return nil, err
	}
	if err := stage(); err != nil {
		return nil, err
	}
	if s.Rank > 0 {
		l, _, err := kernels.IncompleteCholesky(kx, states, s.tol()*float64(big), s.Rank)
		if err != nil {
			return nil, err
		}
		if err := stage(); err != nil {
			return nil, err
		}
		_, r := l.Dims()
		f.l1 = mat.DenseCopyOf(l.Slice(0, n, 0, r))
		l2 := mat.DenseCopyOf(l.Slice(1, big, 0, r))
		f.l2 = l2
		s1 := mat.NewSymDense(r, nil)
		s1.SymOuterK(1, f.l1.T())
		for i := 0; i < r; i++ {
			s1.SetSym(i, i, s1.At(i, i)+c)
		}
		var ch mat.Cholesky
		if !ch.Factorize(s1) {
			return nil, fmt.Errorf("L₁ᵀL₁ + nεI is not positive definite")
		}
		f.trans = &mat.Dense{}
		if err := linalg.IgnoreCondition(ch.SolveTo(f.trans, l2.T())); err != nil {
			return nil, err
		}
		if tr == TransitionOperator {
			f.smooth = &mat.Dense{}
			if err := linalg.IgnoreCondition(ch.SolveTo(f.smooth, f.l1.T())); err != nil {
				return nil, err
			}
		}
		if err := stage(); err != nil {
			return nil, err
		}
		if f.ly, _, err = kernels.IncompleteCholesky(ky, y, s.tol()*float64(n), s.Rank); err != nil {
			return nil, err
		}
		return f, nil
	}
	gx, err := kernels.Gram(kx, x)
	if err != nil {
		return nil, err
	}
	if err := stage(); err != nil {
		return nil, err
	}
	ch, err := ridgeChol(gx, c)
	if err != nil {
		return nil, fmt.Errorf("G_X + nεI: %w", err)
	}
	if err := stage(); err != nil {
		return nil, err
	}
	gxx, err := kernels.Cross(kx, x, xplus)
	if err != nil {
		return nil, err
	}
	if err := stage(); err != nil {
		return nil, err
	}
	f.trans = &mat.Dense{}
	if err := linalg.IgnoreCondition(ch.SolveTo(f.trans, gxx)); err != nil {
		return nil, err
	}
	if tr == TransitionOperator {
		if err := stage(); err != nil {
			return nil, err
		}
		f.smooth = &mat.Dense{}
		if err := linalg.IgnoreCondition(ch.SolveTo(f.smooth, gx)); err != nil {
			return nil, err
		}
	}
	if err := stage(); err != nil {
		return nil, err
	}
	if f.gy, err = kernels.Gram(ky, y); err != nil {
		return nil, err
	}
	if err := stage(); err != nil {
		return nil, err
	}
	return f, nil
}

// predict returns μ for weights α.
func (f *Filter) predict(alpha []float64) []float64 {
	n := len(alpha)
	a := f.pushed(alpha)
	if f.l1 == nil {
		mu := mat.NewVecDense(n, nil)
		mu.MulVec(f.trans, a)
		return mu.RawVector().Data
	}
	var t mat.VecDense
	t.MulVec(f.trans, a)
	mu := mat.NewVecDense(n, nil)
	mu.MulVec(f.l1, &t)
	return mu.RawVector().Data
}

// pushed returns the weights the transition moves: α itself for
// TransitionSample, (G_X + nεI)⁻¹G_X α for TransitionOperator.
func (f *Filter) pushed(alpha []float64) *mat.VecDense {
	n := len(alpha)
	a := mat.NewVecDense(n, alpha)
	if f.smooth != nil {
		t := mat.NewVecDense(f.smooth.RawMatrix().Rows, nil)
		t.MulVec(f.smooth, a)
		if f.l1 != nil {
			u := mat.NewVecDense(n, nil)
			u.MulVec(f.l1, t)
			t = u
		}
		a = t
	}
	return a
}

// Run filters the observations (one per row) and returns the weights over
// X after each of them (n × steps) and the state estimates, the
// normalised weighted means Σ_i α_i X_i (steps × d). A cancelled ctx stops
// it between steps with ctx.Err(); the steps are counted on ctx's progress
// reporter.
func (f *Filter) Run(ctx context.Context, obs *mat.Dense) (weights, estimates *mat.Dense, err error) {
	k, err := crossY(f.KY, f.Y, obs)
	if err != nil {
		return nil, nil, err
	}
	n, _ := f.X.Dims()
	steps, _ := obs.Dims()
	_, d := f.X.Dims()
	weights = mat.NewDense(n, steps, nil)
	estimates = mat.NewDense(steps, d, nil)
	var alpha []float64
	task := progress.Start(ctx, "steps", steps)
	defer task.Done()
	for t := 0; t < steps; t++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		kt := mat.DenseCopyOf(k.Slice(0, n, t, t+1))
		var w *mat.Dense
		if t == 0 {
			if w, err = f.init.Condition(mat.DenseCopyOf(obs.Slice(0, 1, 0, obs.RawMatrix().Cols))); err != nil {
				return nil, nil, err
			}
		} else {
			mu := f.predict(alpha)
			var op observationOp
			if f.ly != nil {
				op, err = newLowRankOp(f.ly, mu, f.s.Delta)
			} else {
				op, err = newExactOp(f.gy, mu, f.s.Delta)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("step %d: %w", t+1, err)
			}
			w = op.apply(kt)
		}
		if alpha, err = Normalise(mat.Col(nil, 0, w)); err != nil {
			return nil, nil, fmt.Errorf("step %d: %w (increase eps or delta, or widen the kernels)", t+1, err)
		}
		weights.SetCol(t, alpha)
		m, _ := Mean(f.X, alpha, false)
		estimates.SetRow(t, m)
		task.Add(1)
	}
	return weights, estimates, nil
}
