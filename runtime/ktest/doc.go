// Package ktest computes kernel two-sample and independence statistics and
// tests them: MMD² and HSIC estimators, permutation and gamma nulls, and the
// aggregate MMD test over a family of rbf bandwidths.
//
// The kernels and Gram matrices come from package kernels; ktest only reads
// them. Permutation b of a test draws from its own seeded stream, so results
// do not depend on the number of workers.
package ktest
