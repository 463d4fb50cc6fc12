//go:build !amd64 || purego

package bke

func tileDist2(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64) {
	panic("bke: tileDist2 without assembly")
}

func tileDist1(x *[8]float64, a float64, z, d, q, r []float64) {
	panic("bke: tileDist1 without assembly")
}

func tileAcc2(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64) {
	panic("bke: tileAcc2 without assembly")
}

func tileAcc1(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64) {
	panic("bke: tileAcc1 without assembly")
}

func tileJac(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64 {
	panic("bke: tileJac without assembly")
}

func tileJac1(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64 {
	panic("bke: tileJac1 without assembly")
}

func tileDist2Y(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64) {
	panic("bke: tileDist2Y without assembly")
}

func tileDist1Y(x *[8]float64, a float64, z, d, q, r []float64) {
	panic("bke: tileDist1Y without assembly")
}

func tileAcc2Y(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64) {
	panic("bke: tileAcc2Y without assembly")
}

func tileAcc1Y(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64) {
	panic("bke: tileAcc1Y without assembly")
}

var useTileAsm = false

func tileKernels() bool { return false }

func tileWide() bool { return false }
