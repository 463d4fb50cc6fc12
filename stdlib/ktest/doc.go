// Package ktest holds the kernel two-sample and independence tests (mmd,
// hsic, mmd_test, hsic_test) over runtime/ktest, and the test-result record
// (ResultRecord, AggregateFields, EllValue) that stdlib/causal's CI test
// returns too.
package ktest
