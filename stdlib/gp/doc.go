// Package gp holds the latent Gaussian process family gp(X, KERNEL), a
// lang/model Latent whose observations runtime/gp integrates out (or
// bounds), and predict.
package gp
