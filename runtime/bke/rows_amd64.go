//go:build amd64 && !purego

package bke

import "github.com/kml-lang/kml/runtime/internal/cpufeat"

// row2Iso is the accumulating loop of row2 for one lengthscale over
// len(u)/4·4 landmarks, four at a time in AVX2 (rows_amd64.s): it adds to
// s1, s2, sy, sky as row2 does and leaves the lane partial sums of G̃ and
// T̃ in acc (g00, g10, g11, t00, t10, t11, four lanes each).
//
//go:noescape
func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64)

// row1Grad is row1's accumulating loop with grad over len(u)/4·4
// landmarks, in AVX2: the same block sums, and the lane partial sums of
// G̃ and T̃ in acc (g, t; four lanes each).
//
//go:noescape
func row1Grad(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[8]float64)

// useRowAsm selects row2Iso, row1Grad, dist2 and dist1 where the CPU
// and KML_CPU allow AVX2; tests clear it to exercise the Go loops.
var useRowAsm = true

// rowAsm reports whether the AVX2 row kernels run: useRowAsm, and
// cpufeat's level (the CPU's, capped by KML_CPU or a test) is AVX2 or
// wider.
func rowAsm() bool { return useRowAsm && cpufeat.Vector >= cpufeat.AVX2 }

// dist2 is row2's distance loop for one lengthscale over len(q)/4·4
// landmarks, in AVX2: v = x − z_l, q_l and the least q_l (+Inf if none),
// with the same roundings as the Go loop (TestRowsMatchGeneral).
//
//go:noescape
func dist2(x0, x1, a0, a1 float64, z, v, q []float64) (qmin float64)

// dist1 is dist2 for D = 1.
//
//go:noescape
func dist1(x, a float64, z, v, q []float64) (qmin float64)
