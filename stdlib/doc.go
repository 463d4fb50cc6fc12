// Package stdlib is KML's standard library: the bindings from builtin names
// to the runtime (maths and reductions, vector and matrix builders,
// distributions, kernels, data input and output, kernel tests, plots) and to
// lang/model (sample, optimize, profile, logp, the bke observation family,
// the latent GP gp(X, KERNEL) and predict).
// Each file registers its builtins in eval.Builtins from an init function,
// with their signatures and the documentation `:help` shows, unpacks the
// arguments, calls the package that does the work, and wraps its result as
// a value; importing the package makes the builtins available.
package stdlib
