// Package gp holds the numerics of latent Gaussian process models
// (Nickisch and Seeger 2009, "Multiple kernel learning: a unifying
// probabilistic viewpoint"; ../shared/MATH.md section 4): the exact log
// marginal likelihood of Gaussian-noise regression with its gradient with
// respect to every kernel hyperparameter and the noise (eq. 6), in O(n³) by
// one Cholesky factor and one inverse; and the contraction ½Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h
// that turns a matrix derivative into hyperparameter gradients without
// forming any ∂K/∂h. The predictive is linalg.GPPredict, shared with BKE.
package gp
