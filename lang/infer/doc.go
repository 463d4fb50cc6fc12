// Package infer holds the inference services that consume a compiled
// model's log density (lang/model's Density): NUTS sampling (Sample) with
// the posterior it returns, its summary and its CmdStan-style CSV;
// L-BFGS optimisation (Optimize) with the checks of its optimum (flat
// directions, a maximum at infinity, parameters the likelihood ignores);
// profile likelihoods (Profile); and Algorithm 1's double loop for kernel
// weights (OptimizeDoubleLoop). It is the lang side of runtime/hmc and
// runtime/inference, as NumPyro's numpyro/infer is beside its model
// handlers and distributions: lang/model says what a model means and
// evaluates it, this package decides where to evaluate it. Only this
// package, not lang/model, imports the samplers and optimisers
// (TestLangImports keeps it so).
//
// The builtins' argument kinds for a model or a posterior (ModelArg,
// PosteriorArg, RecordValues) live here too, beside Posterior.
package infer
