//go:build !amd64 || purego

package subsum

func tableVec(t []float64, wp int, rows []float64, stride, nr int) bool { return false }

func maskedVec(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint) bool {
	return false
}
