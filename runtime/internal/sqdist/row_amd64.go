//go:build amd64 && !purego

package sqdist

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The kernels in row_amd64.s handle len(dst) rounded down to a multiple of
// their lane count (4 or 8); len(x) ≥ 1.
//
//go:noescape
func rowAVX2(dst, yt []float64, stride int, x []float64)

//go:noescape
func rowAVX512(dst, yt []float64, stride int, x []float64)

//go:noescape
func rowExactAVX2(dst, yt []float64, stride int, x []float64)

//go:noescape
func rowExactAVX512(dst, yt []float64, stride int, x []float64)

func rowVec(dst, yt []float64, stride int, x []float64) int {
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		n := len(dst) &^ 7
		if n > 0 {
			rowAVX512(dst[:n], yt, stride, x)
		}
		return n
	case cpufeat.Vector >= cpufeat.AVX2:
		n := len(dst) &^ 3
		if n > 0 {
			rowAVX2(dst[:n], yt, stride, x)
		}
		return n
	}
	return 0
}

func rowExactVec(dst, yt []float64, stride int, x []float64) int {
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		n := len(dst) &^ 7
		if n > 0 {
			rowExactAVX512(dst[:n], yt, stride, x)
		}
		return n
	case cpufeat.Vector >= cpufeat.AVX2:
		n := len(dst) &^ 3
		if n > 0 {
			rowExactAVX2(dst[:n], yt, stride, x)
		}
		return n
	}
	return 0
}
