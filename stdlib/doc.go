// Package stdlib is KML's standard library, one package per domain, each
// with a Register(r *eval.Registry) that adds its builtins:
//
//	core     numbers, vectors, matrices, linear algebra (also on the tape), iterate, timed
//	dists    distributions, ordered, mixture, truncation, multi_normal, dirichlet, lkj, draw, logpdf
//	fit      sample, optimize, profile, summary, draws, logp, loglik
//	kernel   kernel values and builtins, gram, median_heuristic, landmarks
//	ktest    mmd, hsic, mmd_test, hsic_test, ksd_test, dhsic_test, ksample_test, bkl, the test record
//	bke      the bke observation family, split, embedding, witness
//	gp       the latent GP gp(X, K), predict
//	kbr      kernel Bayes' rule: kbr, cme, condition, expect, preimage, cv, abc, kbr_filter, ...
//	kst      kernel Student-t and kde: kst, kde, novelty, auc, classify, tune, fantasy, onehot
//	causal   ci_test, pc, prewhiten
//	files    print, read_csv, write_csv, save
//	plot     plot (the only importer of gonum.org/v1/plot)
//
// A domain imports no other domain but stdlib/kernel, except dists → core
// and causal → ktest (TestStdlibImports). Each builtin's binding unpacks
// its arguments, calls the package that does the work (lang/model or a
// runtime package) and wraps the result as a value. This package is the
// umbrella: Register adds every domain, and importing it fills
// eval.Builtins with the whole library.
//
// Each domain's KML-level tests sit beside it as an external test package
// (package gp_test) that runs scripts through the whole library, with the
// helpers of stdlib/internal/kmltest. The tests here are those of the
// whole: the import rules, fuzzing and odd arguments across every builtin,
// argument names, the memory budget and the progress lines across domains.
package stdlib
