//go:build !amd64 || purego

package fastexp

// Vectorised reports which vectorised kernel Exps uses: none on this build.
func Vectorised() string { return "none" }

func expsVec(dst, x []float64, a, b float64) int { return 0 }
