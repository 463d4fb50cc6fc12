// Package dpm is a Dirichlet-process mixture of Gaussians fitted by
// collapsed Gibbs sampling: the third density estimator of Huszár and
// Lacoste-Julien's (2011) Table 1, beside the kernel Student-t and the
// Parzen window (package kst).
//
// The model: G ~ DP(α, NIW(μ0, κ0, ν0, Ψ0)), (μ_i, Σ_i) ~ G, x_i ~ N(μ_i, Σ_i).
// With the conjugate normal–inverse-Wishart base measure the cluster
// parameters integrate out, and the sampler moves only the partition
// (Neal 2000, algorithm 3): point i leaves its cluster and joins cluster c
// with probability ∝ n_c · t(x_i | cluster c's posterior predictive), or a
// new cluster with probability ∝ α · t(x_i | prior predictive). A cluster's
// posterior after points x_1..x_n is NIW(μ_n, κ0+n, ν0+n, Ψ_n) with
// Ψ_n = Ψ0 + Σ(x−x̄)(x−x̄)ᵀ + κ0 n/(κ0+n) (x̄−μ0)(x̄−μ0)ᵀ, and its predictive
// is a multivariate t with ν_n − d + 1 degrees of freedom, location μ_n and
// scale Ψ_n (κ_n+1)/(κ_n (ν_n−d+1)).
//
// Each cluster keeps the Cholesky factor of Ψ_n, moved by rank-one updates
// and downdates as points come and go (O(d²) each), and refactored from its
// members once a sweep so rounding does not accumulate. The density of a
// new point is the Rao–Blackwellised posterior predictive averaged over the
// kept sweeps: (1/S) Σ_s [Σ_c n_c/(N+α) t_c(x) + α/(N+α) t_0(x)]. It is a
// proper, normalised density (it integrates to one), unlike kst's.
package dpm
