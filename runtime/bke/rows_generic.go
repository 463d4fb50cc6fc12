//go:build !amd64 || purego

package bke

func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64) {
	panic("bke: row2Iso without assembly")
}

func row1Grad(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[8]float64) {
	panic("bke: row1Grad without assembly")
}

var useRowAsm = false

func rowAsm() bool { return false }

func dist2(x0, x1, a0, a1 float64, z, v, q []float64) float64 {
	panic("bke: dist2 without assembly")
}

func dist1(x, a float64, z, v, q []float64) float64 {
	panic("bke: dist1 without assembly")
}
