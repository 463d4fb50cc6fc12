// Package bke holds the Bayesian kernel embedding builtins over
// runtime/bke: the bke observation family, bkl (Bayesian kernel learning
// of a lengthscale), split, embedding and witness.
package bke
