// Package linalg is the one home of the dense numerics that KML's runtime
// packages share: the Cholesky factorisation of a small row-major SPD matrix,
// the Cholesky factorisation with escalating diagonal jitter, the Gaussian
// process predictive given such a factor, the row-major copy of a
// *mat.Dense, the tiled, parallel symmetry check and lower-triangle copy
// before the Cholesky of a user's matrix (SymLower), the Cholesky of a
// matrix known to be exactly symmetric straight from its storage
// (CholLowerFrom), and the LU factorisation of a user's matrix with its
// condition estimate (FactorLU).
//
// Matrices of the model's dimension (metrics, Jacobian Gram matrices) are
// row-major []float64 and the functions on them write into buffers the caller
// owns, so a hot loop allocates nothing; matrices of the data's size are
// gonum's. Every function computes its result in a fixed order, so seeded
// results do not depend on which package calls it.
package linalg
