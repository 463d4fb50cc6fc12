// Package ktest holds the kernel tests over runtime/ktest: two-sample and
// independence (mmd, hsic, mmd_test, hsic_test), joint independence
// (dhsic_test), k samples (ksample_test) and goodness of fit (ksd_test,
// with the target's score taken from a distribution or a kst density);
// bkl (the tests' "bkl" kernel choice on one sample); and the test-result
// record (ResultRecord, AggregateFields, EllValue) that stdlib/causal's CI
// test returns too.
package ktest
