package linalg

// Dot returns Σ_i a_i b_i, summed in index order; b must be at least as
// long as a.
func Dot(a, b []float64) float64 {
	s := 0.0
	b = b[:len(a)]
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
