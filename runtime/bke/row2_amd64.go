//go:build amd64 && !purego

package bke

import "golang.org/x/sys/cpu"

// row2Iso is the accumulating loop of row2 for one lengthscale over
// len(u)/4·4 landmarks, four at a time in AVX2 (row2_amd64.s): it adds to
// s1, s2, sy, sky as row2 does and leaves the lane partial sums of G̃ and
// T̃ in acc (g00, g10, g11, t00, t10, t11, four lanes each).
//
//go:noescape
func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64)

// useRow2Asm selects row2Iso; tests clear it to exercise the Go loop.
var useRow2Asm = cpu.X86.HasAVX2 && cpu.X86.HasFMA
