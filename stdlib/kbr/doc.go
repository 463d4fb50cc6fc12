// Package kbr holds the kernel Bayes' rule builtins over runtime/kbr:
// kbr, cme, condition, expect, preimage, weighted, cv, simulate, abc,
// kbr_filter and run.
package kbr
