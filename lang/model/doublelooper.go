package model

import "context"

// A DoubleLooper is a latent function whose joint MAP and MKL objectives
// the paper's Algorithm 1 (runtime/gp.DoubleLoop) optimises over the
// weights θ of its kernel Σ_m θ_m k_m, every other hyperparameter held.
type DoubleLooper interface {
	// DoubleLoopParams returns, as the observation o resolved, the values
	// of the kernel's weights θ_m and of every other number the kernel and
	// the likelihood depend on.
	DoubleLoopParams(o LatentObservation) (weights, others []float64, err error)
	// DoubleLoop runs Algorithm 1 for objective obj from theta0 over the
	// weights where learn is set (the others held at their values in o),
	// with penalty R(θ) added to the paper's ψ when not nil.
	DoubleLoop(ctx context.Context, o LatentObservation, obj Objective, learn []bool, theta0 []float64, penalty func([]float64) (float64, []float64, []float64)) (*DoubleLoopRun, error)
}

// DoubleLoopRun is where Algorithm 1 ended.
type DoubleLoopRun struct {
	Theta        []float64 // every weight, held ones included
	Outer, Evals int
	Converged    bool
}
