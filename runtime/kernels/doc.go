// Package kernels is KML's kernel library: positive definite kernels with their
// hyperparameter and input gradients, Gram matrices computed in parallel blocks,
// low-rank approximations, the median heuristic and landmarks, and the
// spectral densities of the stationary kernels (spectral.go) with the
// Hilbert-space basis that approximates a GP through them (hilbert.go). The kernel
// two-sample (MMD) and independence (HSIC) tests built on them live in
// package ktest.
//
// Gram, Cross, GramGrad and CrossGrad allocate their results; GramInto,
// CrossInto, GramGradInto and CrossGradInto fill matrices the caller keeps,
// which is what a model evaluating them at every step wants (mapping in a
// fresh large matrix costs more than filling it).
package kernels
