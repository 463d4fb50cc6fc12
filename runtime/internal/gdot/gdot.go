// Package gdot computes inner products through an index, Σ_j x[j]·y[idx[j]]
// (the inner loop of HSIC's permutation null, runtime/ktest): in AVX2 or
// AVX-512 assembly with gathers and fused multiply-adds where the CPU has
// them (chosen at run time by runtime/internal/cpufeat), in Go elsewhere.
//
// The sum keeps eight lanes, lane l adding the terms j ≡ l (mod 8) in the
// order of j, and adds them pairwise in a fixed order at the end, so AVX2
// and AVX-512 give the same bits. The Go path rounds each product before
// adding it (no FMA), so it differs from them by rounding only: at most
// about (len/8 + 4)·2⁻⁵² of Σ_j |x[j]·y[idx[j]]|, which the tests check.
package gdot

import (
	"fmt"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// Lanes is the number of partial sums.
const Lanes = 8

// Index is a list of indices checked once to lie in [0, n), so that Dot
// can read y through any part of it without checking each entry.
type Index struct {
	idx []int
	n   int
}

// NewIndex checks that every entry of idx lies in [0, n) and returns it as
// an Index (which shares idx: the caller must not change it while the
// Index is used).
func NewIndex(idx []int, n int) (Index, error) {
	for j, v := range idx {
		if v < 0 || v >= n {
			return Index{}, fmt.Errorf("gdot: index %d at %d is outside [0, %d)", v, j, n)
		}
	}
	return Index{idx, n}, nil
}

// Dot is Σ_j x[j]·y[ix[lo+j]] for j < len(x). It panics when y is shorter
// than the Index's bound or ix has fewer than lo+len(x) entries.
func Dot(x, y []float64, ix Index, lo int) float64 {
	if len(y) < ix.n || lo < 0 || lo+len(x) > len(ix.idx) {
		panic(fmt.Sprintf("gdot: Dot of %d terms from %d with %d indices below %d and len(y) = %d",
			len(x), lo, len(ix.idx), ix.n, len(y)))
	}
	idx := ix.idx[lo : lo+len(x)]
	var acc [Lanes]float64
	done := dotVec(x, y, idx, &acc)
	for j := done; j < len(x); j++ {
		acc[j%Lanes] += x[j] * y[idx[j]]
	}
	return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]))
}

// dotGo adds the terms of x (a multiple of Lanes long) into the lanes.
func dotGo(x, y []float64, idx []int, acc *[Lanes]float64) {
	for j := 0; j+Lanes <= len(x); j += Lanes {
		xs, is := x[j:j+Lanes], idx[j:j+Lanes]
		for l := range acc {
			acc[l] += xs[l] * y[is[l]]
		}
	}
}

// Vectorised reports which kernel runs: "avx512", "avx2" or "none".
func Vectorised() string { return cpufeat.Vector.String() }
