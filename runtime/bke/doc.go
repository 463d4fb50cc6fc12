// Package bke implements the Bayesian kernel embedding model of Flaxman et al.
// (2016): the marginal pseudolikelihood of the kernel hyperparameters with its
// exact gradient, the GP posterior of the mean embedding, and the
// Bayesian-kernel-learning lengthscale.
package bke
