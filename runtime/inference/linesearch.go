package inference

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// DefaultLineSearchMax is the default number of objective evaluations one
// L-BFGS line search may make (Settings.LineSearchMax); see
// studies/sgprstop for how it was chosen.
const DefaultLineSearchMax = 30

// RoundingTol is τ of the line search's rounding stop (see LineSearch):
// a change of the objective below τ·|f| is taken to be rounding. 10⁻¹³
// is about 450 units in the last place of f; objectives summed over many
// terms round more coarsely (SGPR's bound at 10⁴ rows: 10⁻¹¹–10⁻¹⁰ of
// |f|, studies/sgprstop), while a clean one (an HSGP model's MAP in
// stdlib/gp) needs its last 10⁻¹² to reach a gradient of 10⁻⁶, which
// τ = 10⁻¹⁰ cut short.
const RoundingTol = 1e-13

// Errors that end a line search early; Maximize reports them as the
// start's status.
var (
	// ErrRoundingLimit: no step along the search direction can change
	// the objective by more than its rounding error (a converged start).
	ErrRoundingLimit = errors.New("the objective cannot change beyond its rounding error along the search direction")
	// ErrLineSearchMax: the line search used its evaluations.
	ErrLineSearchMax = errors.New("a line search used all its evaluations")
)

// LineSearch is the line search of Maximize's L-BFGS: gonum's Bisection
// rule (a step is accepted when the objective does not rise and the strong
// Wolfe curvature condition holds with factor 0.9; otherwise the step
// doubles until the minimum is bracketed, then the bracket is halved) with
// two stops that gonum's lacks, which otherwise halves the bracket until
// it is one floating-point number wide (53–83 evaluations that cannot
// move the point, studies/sgprstop):
//
//   - the rounding stop: once the minimum is bracketed in [lo, hi], the
//     search ends when (hi − lo)·|g₀| ≤ τ·|f₀|, g₀ the slope along the
//     direction at the start and f₀ the objective there (τ = RoundingTol).
//     Along a direction on which the objective is convex no point of the
//     bracket is lower than the bracket's best by more than (hi − lo)·|g₀|,
//     so the comparisons of the objective that the halving rests on are
//     then decided by rounding; the start is at an optimum as far as the
//     objective's precision can tell (ErrRoundingLimit);
//   - the cap: at most Max evaluations of the objective per search
//     (ErrLineSearchMax; Max ≤ 0: no cap).
type LineSearch struct {
	// Max caps the evaluations of one search; ≤ 0: no cap.
	Max int
	// Tol is the rounding stop's τ: 0 is RoundingTol, < 0 turns the stop
	// off (gonum's Bisection, for comparisons).
	Tol float64
	// Trace, when set, sees every evaluation of the objective: the step,
	// the objective there and at the start, and the start's slope.
	Trace func(step, f, f0, g0 float64)

	curv               float64
	minStep, maxStep   float64
	currStep           float64
	initF, minF, maxF  float64
	lastF, initGrad    float64
	lastOp             optimize.Operation
	evals              int
	lastStop           error
	searches, maxEvals int
}

var _ optimize.Linesearcher = (*LineSearch)(nil)

// Init starts a search from objective f with slope g < 0 at step 0.
func (b *LineSearch) Init(f, g float64, step float64) optimize.Operation {
	if step <= 0 {
		panic("inference: line search with a step that is not positive")
	}
	if g >= 0 {
		panic("inference: line search along a direction that is not a descent direction")
	}
	b.curv = 0.9
	b.minStep, b.maxStep, b.currStep = 0, math.Inf(1), step
	b.initF, b.minF, b.maxF = f, f, math.NaN()
	b.initGrad = g
	b.evals = 0
	b.searches++
	b.lastOp = optimize.FuncEvaluation
	return b.lastOp
}

// Iterate takes the objective f (after a FuncEvaluation) or the slope g
// (after a GradEvaluation) at the current step and returns what to do next.
func (b *LineSearch) Iterate(f, g float64) (optimize.Operation, float64, error) {
	if b.lastOp != optimize.FuncEvaluation && b.lastOp != optimize.GradEvaluation {
		panic("inference: line search not initialised")
	}
	minF := b.initF
	if b.maxF < minF {
		minF = b.maxF
	}
	if b.minF < minF {
		minF = b.minF
	}
	if b.lastOp == optimize.FuncEvaluation {
		b.evals++
		b.maxEvals = max(b.maxEvals, b.evals)
		if b.Trace != nil {
			b.Trace(b.currStep, f, b.initF, b.initGrad)
		}
		if f <= minF {
			// Lower: look at the slope (the same evaluation in Maximize).
			b.lastF = f
			b.lastOp = optimize.GradEvaluation
			return b.lastOp, b.currStep, nil
		}
		if math.IsInf(b.maxStep, 1) {
			b.maxStep, b.maxF = b.currStep, f
			return b.next((b.minStep + b.maxStep) / 2)
		}
		if b.minF <= b.maxF {
			b.maxStep, b.maxF = b.currStep, f
		} else {
			b.minStep, b.minF = b.currStep, f
		}
		return b.next((b.minStep + b.maxStep) / 2)
	}
	f = b.lastF
	if optimize.StrongWolfeConditionsMet(f, g, minF, b.initGrad, b.currStep, 0, b.curv) {
		b.lastOp = optimize.MajorIteration
		return b.lastOp, b.currStep, nil
	}
	if math.IsInf(b.maxStep, 1) {
		if g > 0 {
			b.maxStep, b.maxF = b.currStep, f
			return b.next((b.minStep + b.maxStep) / 2)
		}
		b.minStep, b.minF = b.currStep, f
		return b.next(b.currStep * 2)
	}
	if g < 0 {
		b.minStep, b.minF = b.currStep, f
	} else {
		b.maxStep, b.maxF = b.currStep, f
	}
	return b.next((b.minStep + b.maxStep) / 2)
}

// next moves to step, or ends the search by one of its stops.
func (b *LineSearch) next(step float64) (optimize.Operation, float64, error) {
	tol := b.Tol
	if tol == 0 {
		tol = RoundingTol
	}
	stop := error(nil)
	switch {
	case tol > 0 && !math.IsInf(b.maxStep, 1) && (b.maxStep-b.minStep)*math.Abs(b.initGrad) <= tol*math.Abs(b.initF):
		stop = ErrRoundingLimit
	case b.Max > 0 && b.evals >= b.Max:
		stop = ErrLineSearchMax
	case step == b.currStep:
		stop = optimize.ErrLinesearcherFailure
	}
	if stop != nil {
		b.lastStop = stop
		b.lastOp = optimize.NoOperation
		return b.lastOp, b.currStep, stop
	}
	b.currStep = step
	b.lastOp = optimize.FuncEvaluation
	return b.lastOp, b.currStep, nil
}
