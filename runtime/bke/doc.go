// Package bke implements the Bayesian kernel embedding model of Flaxman et al.
// (2016): the marginal pseudolikelihood of the kernel hyperparameters with its
// exact gradient, the GP posterior of the mean embedding, and the
// Bayesian-kernel-learning lengthscale.
//
// The kernel is the squared exponential σ² exp(−½ Σ_d (x_d − y_d)²/ℓ_d²)
// with an isotropic or ARD lengthscale, the one kernel whose prior
// covariance r = ∫ k k dν has a closed form here (PriorKernel), and sums
// of such kernels (SumLogDensity, with the cross terms of crossFactor);
// other kernels would need r by quadrature.
//
// A Model holds the data x (n×D) and the landmarks z (m×D), the points at
// which the empirical embedding μ̂(z) = (1/n) Σ_i k(x_i, z) is observed
// (Split holds some rows out for them, as the paper suggests). Its methods:
//
//   - LogDensity: log p(x | ℓ, σ², τ²) and its gradient in O(m³ + nmD²), in
//     the derived form or as the authors' Stan program computes it
//     (Variant), for NUTS or optimisation over the hyperparameters;
//   - Degenerate: whether the hyperparameters are in the region where the
//     pseudolikelihood with ℓ and τ² both free degenerates;
//   - Posterior, DrawPosterior: the GP posterior of μ at new points given
//     μ̂(z), for embedding and witness-function plots.
//
// BKL maximises the pseudolikelihood over an isotropic lengthscale with τ²
// fixed, globally over a grid, for use in kernel tests in place of the
// median heuristic.
package bke
