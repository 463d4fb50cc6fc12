// Package inference holds the model-agnostic fitting tools other than NUTS:
// seeded multi-start L-BFGS optimisation on the unconstrained scale and
// parallel evaluation of a log density along a grid (profiles).
package inference
