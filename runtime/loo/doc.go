// Package loo estimates a model's expected log predictive density for new
// data from its posterior draws alone: Pareto-smoothed importance-sampling
// leave-one-out cross-validation (PSIS-LOO), WAIC, and the comparison of
// models by the difference of their pointwise estimates.
//
// Every function takes the pointwise log likelihood as one slice per
// observation, each holding that observation's log likelihood at every
// posterior draw (the S×N matrix of R's loo, stored point by point). The
// package follows R's loo package (Vehtari, Gabry et al.) step for step so
// that its numbers agree with it to rounding: Vehtari, Gelman and Gabry
// (2017), "Practical Bayesian model evaluation using leave-one-out
// cross-validation and WAIC", Statistics and Computing 27; Vehtari, Simpson,
// Gelman, Yao and Gabry (2024), "Pareto smoothed importance sampling",
// JMLR 25, for the k̂ diagnostic and its sample-size-dependent threshold;
// Zhang and Stephens (2009) for the generalized Pareto fit. testdata holds
// R's numbers and the script that made them.
package loo
