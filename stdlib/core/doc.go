// Package core holds the builtins for numbers, vectors and matrices: the
// elementwise maths, reductions (sum, mean, quantile, ...), builders (seq,
// rep, cbind, ...), linear algebra (chol, solve, inv, logdet, ...) on data
// and on the tape inside models, iterate for recurrences, and timed.
package core
