//go:build amd64 && !purego

package gdot

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The kernels in gdot_amd64.s add len(x)/8·8 terms (len(x) ≥ 8) into acc,
// fused, lane j%8; every idx entry they read is in range for y (Index).
//
//go:noescape
func dotAVX2(x, y []float64, idx []int, acc *[Lanes]float64)

//go:noescape
func dotAVX512(x, y []float64, idx []int, acc *[Lanes]float64)

func dotVec(x, y []float64, idx []int, acc *[Lanes]float64) int {
	n := len(x) &^ (Lanes - 1)
	if n == 0 {
		return 0
	}
	switch {
	case cpufeat.Vector >= cpufeat.AVX512:
		dotAVX512(x[:n], y, idx, acc)
	case cpufeat.Vector >= cpufeat.AVX2:
		dotAVX2(x[:n], y, idx, acc)
	default:
		dotGo(x[:n], y, idx, acc)
	}
	return n
}
