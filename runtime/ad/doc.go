// Package ad is a small reverse-mode automatic differentiation tape. The model
// compiler records a model's arithmetic on a Tape and reads back the gradient
// of the log density with respect to the unconstrained parameters. Scalar
// operations are nodes with their partial derivatives; a vector operation
// (MatVec, Elementwise, the matrix operations MatMul, Cholesky and Solve,
// VecFunc) records its results as a run of nodes and propagates their
// adjoints itself, with BLAS where it can. Matrices are stored row by row.
// A recording made only of operations the tape knows (no Node with parents,
// no value read out with Value) can be replayed: Replay computes it again
// at new inputs, bit for bit as recording would, without allocating.
package ad
