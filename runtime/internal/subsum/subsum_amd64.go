//go:build amd64 && !purego

package subsum

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The kernels in subsum_amd64.s; their arguments are checked by Table and
// MaskedSums (wp a multiple of 8, nr ≥ 1, len(cols) ≥ 1).
//
//go:noescape
func tableAVX2(t []float64, wp int, rows []float64, stride, nr int)

//go:noescape
func tableAVX512(t []float64, wp int, rows []float64, stride, nr int)

//go:noescape
func maskedAVX2(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint)

//go:noescape
func maskedAVX512(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint)

func tableVec(t []float64, wp int, rows []float64, stride, nr int) bool {
	if wp%Lanes != 0 {
		return false
	}
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		tableAVX512(t, wp, rows, stride, nr)
	case cpufeat.Vector >= cpufeat.AVX2:
		tableAVX2(t, wp, rows, stride, nr)
	default:
		return false
	}
	return true
}

func maskedVec(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint) bool {
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		maskedAVX512(acc, t, wp, masks, shift, cols, cshift)
	case cpufeat.Vector >= cpufeat.AVX2:
		maskedAVX2(acc, t, wp, masks, shift, cols, cshift)
	default:
		return false
	}
	return true
}
