// Package loo holds the builtins that estimate and compare a model's
// predictive performance from its posterior: loo (PSIS-LOO), waic and
// loo_compare, over runtime/loo, with the pointwise log likelihood taken
// from the model's observation statements (infer.PointwiseLogLik).
package loo
