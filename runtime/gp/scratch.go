package gp

import "sync"

// squares recycles the n×n scratch matrices of an evaluation of Laplace's
// approximation that do not outlive it: the matrix B = I + W^½KW^½ that
// each Newton step factors and the one at the mode, the full copies of K
// and R, the product K·R and the gradient's weights W (NonGaussian also
// takes the kernel matrix from it and releases W). Allocated afresh, the fourteen n×n arrays of
// an evaluation at n = 207 (issue 39) made the collector run every one or
// two evaluations; an ML-II fit of examples/gp_classify.kml took 15% less
// CPU time with the collector run eight times less often (GOGC=800).
var squares sync.Pool // of *[]float64

// recycle is false in tests that compute a reference on fresh arrays.
var recycle = true

// square returns n·n zeros, in a recycled array when one is at hand.
func square(n int) []float64 {
	if !recycle {
		return make([]float64, n*n)
	}
	if p, _ := squares.Get().(*[]float64); p != nil && cap(*p) >= n*n {
		s := (*p)[:n*n]
		clear(s)
		return s
	}
	return make([]float64, n*n)
}

// release hands s back for square once nothing refers to it.
func release(s []float64) {
	if recycle {
		squares.Put(&s)
	}
}
