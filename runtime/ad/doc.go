// Package ad is a small reverse-mode automatic differentiation tape. The model
// compiler records a model's arithmetic on a Tape and reads back the gradient
// of the log density with respect to the unconstrained parameters. Scalar
// operations are nodes with their partial derivatives; a vector operation
// (MatVec, Elementwise, the matrix operations MatMul, Cholesky and Solve,
// VecFunc) records its results as a run of nodes and propagates their
// adjoints itself, with BLAS where it can; Loop turns the nodes of a
// recurrence's identical steps into one such run (loop.go). Matrices are
// stored row by row.
//
// A recording made only of operations the tape knows can be replayed:
// Replay computes it again at new inputs, bit for bit as recording would.
// From outside this package, Func (a value and its partials computed from
// the parents' values by a function the tape keeps) and VecFunc are the
// only ways to record a node with parents that the tape has no operation
// for, and Guard the only way to decide something on a tape value; Replay
// calls their functions again. Node with parents and Open record opaque
// nodes, and Value reads a value out for the caller to decide with: either
// makes the recording not replayable, and Replayable then reports the
// first of them and the caller's file and line. They remain for code not
// yet converted; new code uses Func and Guard (and Peek for a value it
// only passes on).
package ad
