// Package kml embeds the KML interpreter in a Go program: make an
// Interpreter, Set Go values into its scope, Eval KML source, and Get the
// results back as Go values.
//
//	in := kml.New(kml.Seed(7), kml.Dirs("data"))
//	in.Set("x", []float64{0.3, -1.2, 2.2})
//	v, err := in.Eval("mean(x)")
//
// Scripts can read and write files only inside the directories granted
// with Dirs (none by default); a path that leaves them through ".." or a
// symbolic link is refused. A Context option cancels a running fit, and
// Interrupt stops the running call, a dense factorisation included, and
// nothing else in the process.
//
// # Layout
//
// The module is one package per stage, each with one job:
//
//   - lang/grammar parses source text into the syntax tree of lang/ast;
//   - lang/ast is that tree, with the position and error types every stage shares;
//   - lang/check resolves names, checks calls against signatures and binds
//     their arguments once, and classifies every `~` in a model;
//   - lang/eval runs programs: values, the builtin registry, the evaluator;
//   - lang/model owns what `~` means: the model compiler, its log density,
//     the observation-family contract, fitting and the posterior;
//   - lang/repl is the interactive prompt; cmd/kml the command;
//   - stdlib binds builtin names to lang/model and the runtime, one
//     package per domain (core, dists, fit, kernel, ktest, bke, gp, kbr,
//     kst, causal, files, plot), each with a Register(r); the stdlib
//     package itself registers them all (see the Builtins option);
//   - runtime/ad is the reverse-mode tape; runtime/dist the distributions;
//     runtime/kernels the kernels and Gram matrices; runtime/ktest the
//     kernel two-sample and independence tests; runtime/bke the Bayesian
//     kernel embedding model; runtime/gp the latent GP objectives
//     (marginal likelihood, VB bound, joint MAP, MKL) and their
//     gradients; runtime/kbr the kernel Bayes' rule (posterior weights,
//     conditional mean embeddings, the KBR filter, rejection ABC);
//     runtime/kst the kernel Student-t density (and its Parzen-window
//     baseline); runtime/causal the PC algorithm and its conditional-
//     independence tests (GP-residual HSIC, Fisher's z) and prewhitening;
//     runtime/hmc the NUTS sampler;
//     runtime/inference the log-density contract, optimisation and
//     Pathfinder; runtime/linalg the shared dense numerics (Cholesky,
//     jittered Cholesky, GP predictive); runtime/rng the seeded streams;
//     runtime/stats the quantiles;
//   - internal/sandbox confines a script's file access.
package kml
