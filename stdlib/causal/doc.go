// Package causal holds ci_test, pc and prewhiten over runtime/causal. It
// imports stdlib/ktest because the CI test is an HSIC test and returns the
// same record.
package causal
