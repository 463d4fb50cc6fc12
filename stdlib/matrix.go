package stdlib

import "gonum.org/v1/gonum/mat"

// denseOf copies any matrix into a *mat.Dense.
func denseOf(m mat.Matrix) *mat.Dense { return mat.DenseCopyOf(m) }
