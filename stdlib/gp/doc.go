// Package gp holds the latent Gaussian process family gp(X, KERNEL), a
// lang/model Latent whose observations runtime/gp integrates out (or
// bounds), its multi-class form gp(X, KERNEL, classes: C) observed through
// categorical_logit (gp_classes.go), and predict.
package gp
