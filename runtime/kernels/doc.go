// Package kernels is KML's kernel library: positive definite kernels with their
// hyperparameter and input gradients, Gram matrices computed in parallel blocks,
// low-rank approximations, and the kernel two-sample (MMD) and independence
// (HSIC) statistics and tests.
package kernels
