//go:build !amd64 || purego

package sqdist

func rowVec(dst, yt []float64, stride int, x []float64) int { return 0 }

func rowExactVec(dst, yt []float64, stride int, x []float64) int { return 0 }
