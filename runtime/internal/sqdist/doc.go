// Package sqdist computes a row of squared Euclidean distances from one
// point to many, stored by coordinate (column-major), the inner loop of
// the Gram matrices of stationary kernels at D ≥ 3: in AVX2 or AVX-512
// assembly where the CPU has them (chosen at run time by
// runtime/internal/cpufeat), in Go elsewhere. The sums are the direct
// Σ_d (y_d − x_d)², so nothing cancels.
package sqdist
