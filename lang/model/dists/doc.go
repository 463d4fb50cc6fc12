// Package dists holds what may follow `~` in a model: the distribution
// values (DistVal for a univariate family, MultiNormal, Dirichlet,
// LKJCholesky, CategoricalLogit) with their log densities on the tape, draw
// and logpdf (distribution.go is the contract), and the transforms that map
// a parameter's free reals onto its prior's support.
//
// A distribution says where its values lie (Support, a Constraint); one
// registry (registry.go, NumPyro's biject_to) maps each support to its
// Transform: an interval, an ordered vector, bounds that move with other
// parameters, a simplex, the Cholesky factor of a correlation matrix. The
// model compiler (lang/model) asks the registry once per parameter and then
// only talks to the Transform, so a new support is a Constraint, a
// Transform and one row of the registry, here.
//
// The package knows nothing of models: lang/model imports it, never the
// reverse. A distribution whose parameter is a latent function (lang/model's
// Latent) only carries it; the model hands such observations to the latent
// function.
package dists
