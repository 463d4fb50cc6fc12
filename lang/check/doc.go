// Package check is the pass between parsing and evaluation. It resolves every
// name (suggesting the nearest one for a typo), rejects rebinding a name in
// one scope, checks calls to builtins and fns against their signatures
// (arity, unknown and duplicate named arguments), follows imports and reports
// cycles, and inside each model classifies every `~` statement as a parameter,
// a vector parameter, an observation or a latent function, recording the
// result in the ast.Tilde node. It reports all errors at once, sorted by
// position, and never stops at the first.
package check
