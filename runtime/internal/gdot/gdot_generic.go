//go:build !amd64 || purego

package gdot

// dotVec adds the first len(x)/8·8 terms into acc and returns their count.
func dotVec(x, y []float64, idx []int, acc *[Lanes]float64) int {
	n := len(x) &^ (Lanes - 1)
	dotGo(x[:n], y, idx, acc)
	return n
}
