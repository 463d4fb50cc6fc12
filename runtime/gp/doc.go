// Package gp holds the numerics of latent Gaussian process models
// (Nickisch and Seeger 2009, "Multiple kernel learning: a unifying
// probabilistic viewpoint"; ../shared/MATH.md section 4): the exact log
// marginal likelihood of Gaussian-noise regression with its gradient with
// respect to every kernel hyperparameter and the noise (eq. 6), in O(n³) by
// one Cholesky factor and one inverse; and the contraction ½Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h
// that turns a matrix derivative into hyperparameter gradients without
// forming any ∂K/∂h; the Gaussian-noise joint MAP, MKL and RR objectives
// in closed form; and, for Laplace, Student-t and logistic likelihoods, the
// super-Gaussian variational bound (eqs. 10–13) and joint MAP and MKL,
// through one inner loop of Gaussian sites (FitSites: VB's fixed point, or
// with the variances z = 0 iteratively reweighted least squares for MAP);
// and Laplace's approximation to the marginal likelihood (Newton's method
// for the mode in the stable B = I + W^½KW^½ form, with the gradient's
// implicit term through the mode) for the Student-t and logistic
// likelihoods, and expectation propagation (sequential, damped when it
// cycles, tilted moments by Simpson's rule) for all three; the Poisson and
// negative binomial counts with the log link under Laplace, EP and joint
// MAP (count.go; no VB bound exists for them); and multi-class
// classification with the softmax likelihood and one GP per class under
// Laplace's approximation (Williams and Barber 1998; R&W Algorithms 3.3
// and 3.4) with the gradient of its log marginal likelihood.
// Beside them, for large n: Titsias' collapsed variational bound (SGPR,
// SGPRLogMarginal, SGPRPredict, streamed in row blocks), FITC
// (FITCLogMarginal, FITCPredict, likewise) and the Nyström
// (subset-of-regressors/DTC) marginal likelihood (LowRankLogMarginal),
// with greedy conditional-variance inducing points (GreedyVariance); the
// stochastic variational GP for non-Gaussian likelihoods at large n (SVGP:
// whitened inducing variables, natural-gradient steps for q and Adam for
// the hyperparameters on minibatches, svgp.go, its expectations by
// Gauss–Hermite quadrature in svgp_lik.go, and its softmax form for C
// classes, SVGPMulti in svgp_multi.go, with quasi-Monte Carlo
// expectations over fixed base normals); and the
// paper's Algorithm 1, the double loop for joint MAP and MKL with a
// linearly weighted kernel (DoubleLoop); and regularised-risk MKL with the
// SVM's hinge and ε-insensitive losses through the SVM dual (SVM). The
// exact predictive is
// linalg.GPPredict, shared with BKE.
//
// The non-Gaussian approximations share one contract (inference.go): an
// Inference fits a Gaussian approximation and returns one Posterior, which
// NonGaussian contracts for the gradient and the predictive reads; the
// table of approx.go names them, so a new approximation is one file and
// one row there.
//
// Files: marginal.go (exact marginal), gaussian.go (the Gaussian-noise
// objectives), sites.go (the super-Gaussian bounds), inference.go (the
// contract), approx.go (the table of approximations), vb.go (VB's bound),
// latent.go (the inner loop and the non-Gaussian objectives), count.go
// (the count likelihoods), laplace.go
// (Laplace's approximation), ep.go (expectation propagation), newton.go
// (the Newton ascent Laplace, multi-class Laplace and the logistic joint
// MAP share), multiclass.go and multipredict.go (multi-class Laplace and
// its predictions), mapsolve.go (joint MAP's inner solvers), contract.go
// (the derivative contractions), structured.go (the marginal's fused Gram
// fill and contraction for sums of scaled rbf, linear, white and constant
// kernels), symfactor.go and potrf.go (the marginal's factor, with jitter,
// and inverse by recursive blocking over matrix products), lowrank.go,
// doubleloop.go, svm.go, draw.go (draws of f at the inputs for forward
// sampling: prior, regression posterior, q(f)), svgp.go and svgp_lik.go
// (the stochastic variational GP and its Gauss–Hermite expectations).
package gp
