// Package ktest holds the kernel two-sample and independence tests (mmd,
// hsic, mmd_test, hsic_test) over runtime/ktest, the goodness-of-fit test
// ksd_test (with the target's score taken from a distribution or a kst
// density), bkl (the tests' "bkl" kernel choice on one sample), and the
// test-result record (ResultRecord, AggregateFields, EllValue) that
// stdlib/causal's CI test returns too.
package ktest
