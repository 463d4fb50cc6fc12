// Package fit holds the builtins that fit and evaluate models through
// lang/model: sample (NUTS), optimize, profile, summary, draws, logp and
// loglik.
package fit
