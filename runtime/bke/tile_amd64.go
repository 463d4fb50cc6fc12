//go:build amd64 && !purego

package bke

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// The tile kernels of tile_amd64.s, for eight rows in the eight lanes of
// AVX-512, or in two halves of AVX2's four (see tile.go for the layout).

//go:noescape
func tileDist2(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64)

//go:noescape
func tileDist1(x *[8]float64, a float64, z, d, q, r []float64)

//go:noescape
func tileAcc2(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)

//go:noescape
func tileAcc1(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)

//go:noescape
func tileJac(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)

//go:noescape
func tileJac1(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)

// The AVX2 forms: the same arithmetic, four lanes at a time.

//go:noescape
func tileDist2Y(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64)

//go:noescape
func tileDist1Y(x *[8]float64, a float64, z, d, q, r []float64)

//go:noescape
func tileAcc2Y(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)

//go:noescape
func tileAcc1Y(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)

// useTileAsm selects the tile kernels; tests clear it to exercise the
// rows of rows.go on the same machine.
var useTileAsm = true

// tileKernels reports whether the tile kernels can run: they need AVX2
// with FMA at least, which cpufeat detects (and tests may turn off).
func tileKernels() bool { return useTileAsm && cpufeat.Vector >= cpufeat.AVX2 }

// tileWide reports whether the tile kernels are the AVX-512 ones (else
// the AVX2 ones, with the Jacobian's closing in Go).
func tileWide() bool { return cpufeat.Vector >= cpufeat.AVX512 }
