//go:build !amd64 || purego

package bke

func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64) {
	panic("bke: row2Iso without assembly")
}

func row1Grad(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[8]float64) {
	panic("bke: row1Grad without assembly")
}

var useRowAsm = false
