// Package ktest computes kernel two-sample and independence statistics and
// tests them: MMD² and HSIC estimators; dHSIC for the joint independence
// of d variables (dhsic.go) and the k-sample test (ksample.go); the kernel
// Stein discrepancy goodness-of-fit test with its wild bootstrap (ksd.go);
// permutation nulls computed a block of permutations at a time, exact or
// on low-rank features; gamma nulls; the aggregate tests over a collection
// of rbf bandwidths; and the rules (median heuristic, BKL) that choose a
// test's kernel.
//
// The kernels and Gram matrices come from package kernels; ktest only reads
// them. Permutation b of a test draws from its own seeded stream and every
// statistic is computed in a fixed order, so results do not depend on the
// number of workers.
package ktest
