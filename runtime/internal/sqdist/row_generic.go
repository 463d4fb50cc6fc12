//go:build !amd64 || purego

package sqdist

// Vectorised reports which vectorised kernel Row uses: none on this build.
func Vectorised() string { return "none" }

func rowVec(dst, yt []float64, stride int, x []float64) int { return 0 }
