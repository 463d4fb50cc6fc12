package sqdist

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// Vectorised reports which vectorised kernel Row uses: "avx512", "avx2" or
// "none" (cpufeat.Vector).
func Vectorised() string { return cpufeat.Vector.String() }

// Row sets dst[j] = Σ_d (yt[d·stride + j] − x[d])² for j < len(dst): the
// squared distances from x to the points whose coordinate d is the row
// yt[d·stride:] of a column-major layout. Rounding as the direct sum in
// the order of d (each term added with one rounding, fused on the
// vectorised path).
func Row(dst, yt []float64, stride int, x []float64) {
	if len(x) == 0 {
		clear(dst)
		return
	}
	if len(dst) > stride || len(yt) < (len(x)-1)*stride+len(dst) {
		panic("sqdist: Row with yt too short for stride and len(dst)")
	}
	done := rowVec(dst, yt, stride, x)
	rowGo(dst[done:], yt[done:], stride, x)
}

// RowExact is Row rounded exactly as rowGo, the direct sum in the order
// of d with each square and each sum rounded separately (never fused), on
// every path, so that it agrees bit for bit with a scalar loop that adds
// (a − b)² one coordinate at a time (k-means' assignments, which must
// not depend on the processor).
func RowExact(dst, yt []float64, stride int, x []float64) {
	if len(x) == 0 {
		clear(dst)
		return
	}
	if len(dst) > stride || len(yt) < (len(x)-1)*stride+len(dst) {
		panic("sqdist: RowExact with yt too short for stride and len(dst)")
	}
	done := rowExactVec(dst, yt, stride, x)
	rowGo(dst[done:], yt[done:], stride, x)
}

// rowGo is Row in Go, one coordinate at a time along the row.
func rowGo(dst, yt []float64, stride int, x []float64) {
	n := len(dst)
	clear(dst)
	for d, xv := range x {
		col := yt[d*stride : d*stride+n]
		for j, v := range col {
			t := v - xv
			dst[j] += float64(t * t) // never fused (RowExact)
		}
	}
}
