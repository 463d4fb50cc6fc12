// Package stdlib is KML's standard library: the builtins a program calls
// (maths and reductions, vector and matrix builders, distributions, kernels,
// data input and output, fitting and testing). Each file registers its
// builtins in eval.Builtins from an init function, with their signatures and
// the documentation `:help` shows; importing the package makes them
// available.
package stdlib
