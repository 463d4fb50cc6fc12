//go:build amd64 && !purego

package fastexp

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The vectorised kernels in exp_amd64.s. expsAVX2 and expsAVX512 handle
// len(x) rounded down to a multiple of their lane count (4 or 8), and need
// len(dst) ≥ that.
//
//go:noescape
func expsAVX2(dst, x []float64, a, b float64)

//go:noescape
func expsAVX512(dst, x []float64, a, b float64)

// expsAVX512Tail handles len(x) < 8 elements with masked loads and stores,
// so that short rows (m = 20 or 30 landmarks) take no scalar tail.
//
//go:noescape
func expsAVX512Tail(dst, x []float64, a, b float64)

// expsVec runs the vectorised kernel on the largest prefix it handles and
// returns that prefix's length.
func expsVec(dst, x []float64, a, b float64) int {
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		n := len(x) &^ 7
		if n > 0 {
			expsAVX512(dst[:n], x[:n], a, b)
		}
		if n < len(x) {
			expsAVX512Tail(dst[n:len(x)], x[n:], a, b)
		}
		return len(x)
	case cpufeat.Vector >= cpufeat.AVX2:
		n := len(x) &^ 3
		if n > 0 {
			expsAVX2(dst[:n], x[:n], a, b)
		}
		return n
	}
	return 0
}
