// Package kbr is the kernel Bayes' rule of Fukumizu, Song and Gretton
// (2013; MATH.md §3): Bayesian inference where the prior and the
// likelihood are given as samples and the posterior is a weighted sample.
//
// From a joint sample (X_i, Y_i), i = 1..n, Gram matrices G_X and G_Y, and
// a prior Σ_j γ_j k_X(·, U_j):
//
//	m_i = Σ_j γ_j k_X(X_i, U_j),  μ = (G_X + nεI)⁻¹ m,  Λ = diag(μ),
//	R   = Λ G_Y ((Λ G_Y)² + δI)⁻¹ Λ,  w(y) = R k_Y(y),
//
// and the posterior kernel mean given y is Σ_i w_i k_X(·, X_i), so
// E[f(X) | y] ≈ Σ_i w_i f(X_i). New builds the operator once (an LU
// factorisation, or a rank-r factor with the Woodbury identity), and
// Condition applies it to any number of observations. CME is the
// conditional mean embedding of eq. (10), w = (G_Y + nεI)⁻¹ k_Y(y);
// Filter is the KBR filter of §4.3, whose Smooth and Predict give the
// smoothed estimates and one-step predictions derived the same way
// (smooth.go); Rejection is rejection ABC, the
// paper's baseline; Mean and Preimage turn weights into point estimates.
//
// Weights can be negative (the regularised inverses do not keep them
// positive). Every function here that normalises weights divides by their
// signed sum Σ_i w_i, keeping negative weights as they are, and refuses
// weights whose signed sum is not clearly positive.
package kbr
