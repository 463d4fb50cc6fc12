// Package model owns what `~` means: it compiles a `model { }` value into a
// differentiable log density on the unconstrained scale (compile.go,
// density.go; each parameter's transform comes from its prior's support
// through lang/model/dists, which holds the distribution values), holds
// the contract an observation family implements (family.go), and orchestrates
// fitting — NUTS sampling, L-BFGS optimisation, profile likelihoods — into
// the posterior a program reads (fit.go, posterior.go).
//
// Each evaluation of a density passes its services to the observation
// families explicitly, as an *Eval (the compiled model's cache, its
// warnings, whether the point is being checked), and a posterior reads what
// a draw's families resolved to through Density.Families. lang/eval knows
// nothing of models beyond the declaration value; stdlib binds the
// builtins (sample, optimize, profile, logp, bke) to this package.
package model
