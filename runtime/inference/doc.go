// Package inference holds the model-agnostic tools that fit a differentiable
// log density on the unconstrained scale, other than NUTS itself: the Model
// contract that every one of them (and package hmc) consumes, seeded uniform
// initialisation, the one-model-per-worker pool, multi-start L-BFGS
// maximisation (Maximize), parallel evaluation along a grid (Profile) and
// Pathfinder, which chooses a sampler's starting points.
//
// There are two L-BFGS implementations on purpose. Maximize uses gonum's
// optimize.LBFGS. Pathfinder needs each iterate's (s, y) history to build
// its Gaussian approximation N(x + Σ∇log p, Σ) from the L-BFGS inverse
// Hessian Σ, and gonum's LBFGS does not expose that history, so Pathfinder
// keeps its own (lbfgsPath, twoLoop).
package inference
