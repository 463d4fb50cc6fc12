// Package ktest holds the kernel two-sample and independence tests (mmd,
// hsic, mmd_test, hsic_test) over runtime/ktest, bkl (the tests' "bkl"
// kernel choice on one sample), and the test-result record
// (ResultRecord, AggregateFields, EllValue) that stdlib/causal's CI test
// returns too.
package ktest
