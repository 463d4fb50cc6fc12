// Package testmodel holds the log densities with exact gradients that the
// tests of hmc and inference share.
package testmodel
