package linalg

import "math"

// SameBits reports whether a and b hold the same numbers to the bit (NaN
// payloads and signed zeros included): the test of a replay, a memo or a
// draw that must reproduce a computation exactly.
func SameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
