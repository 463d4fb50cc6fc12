// Package ad is a small reverse-mode automatic differentiation tape. The model
// compiler records a model's arithmetic on a Tape and reads back the gradient
// of the log density with respect to the unconstrained parameters.
package ad
