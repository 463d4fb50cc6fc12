// Package dists holds the distribution builtins: every family of
// runtime/dist by name, ordered, mixture, truncation (lower:/upper:),
// multi_normal, dirichlet, lkj_corr_cholesky, categorical_logit, and draw
// and logpdf, which make one call on lang/model's Drawer and LogPDFer.
// It imports stdlib/core for the on-tape linear algebra of multi_normal.
package dists
