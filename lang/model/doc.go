// Package model owns what `~` means: it compiles a `model { }` value into a
// differentiable log density on the unconstrained scale (compile.go,
// density.go; each parameter's transform comes from its prior's support
// through lang/model/dists, which holds the distribution values), holds
// the contract an observation family implements (family.go), and runs the
// model once for an Observer (observer.go): the families, the latent
// observations, the derived quantities or the constrained parameters at a
// point. Fitting — NUTS sampling, L-BFGS optimisation, profile likelihoods
// and the posterior a program reads — is lang/infer's, which consumes the
// Density; this package imports no sampler or optimiser.
//
// Each evaluation of a density passes its services to the observation
// families explicitly, as an *Eval (the compiled model's cache, its
// warnings, whether the point is being checked), and a posterior reads what
// a draw's families resolved to through Density.Families. lang/eval knows
// nothing of models beyond the declaration value; stdlib binds the
// builtins (sample, optimize, profile, logp, bke) to this package and
// lang/infer.
package model
