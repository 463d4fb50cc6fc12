// Package kst holds the kernel Student-t density and its Parzen-window
// baseline over runtime/kst: kst, kde, novelty, auc, onehot, classify, tune
// and fantasy, and the Dirichlet-process mixture dpm (runtime/dpm) beside
// them. Their densities answer logpdf as lang/model LogPDFers.
package kst
