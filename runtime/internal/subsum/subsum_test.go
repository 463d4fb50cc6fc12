package subsum

import (
	"fmt"
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/rng"
)

// levels are the paths this machine can run, the Go fallback first.
func levels() []cpufeat.Level { return cpufeat.Levels() }

// randomRows fills an nr×stride block with normals, some entries −0, +0
// and values of very different sizes, so that an entry-order difference
// between paths would show in the bits.
func randomRows(r interface{ NormFloat64() float64 }, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch i % 13 {
		case 3:
			x[i] = math.Copysign(0, -1)
		case 7:
			x[i] = 1e12 * r.NormFloat64()
		default:
			x[i] = r.NormFloat64()
		}
	}
	return x
}

// TestTable: every path gives the Go path's bits, and the Go path the
// direct subset sums (to rounding: relative 1e-15 of the sum of
// magnitudes), with zeros past w.
func TestTable(t *testing.T) {
	r := rng.New(1, rng.Stream(0x73756273)) // "subs"
	for _, wp := range []int{8, 16, 24, 64} {
		for _, nr := range []int{1, 3, 8} {
			for _, w := range []int{wp, wp - 3} {
				stride := wp + 5
				rows := randomRows(r, nr*stride)
				var want []float64
				for _, l := range levels() {
					t.Run(fmt.Sprintf("%v/wp=%d/nr=%d/w=%d", l, wp, nr, w), func(t *testing.T) {
						defer cpufeat.Use(l)()
						tab := make([]float64, (wp<<nr)+1)
						for i := range tab {
							tab[i] = math.NaN() // all must be written
						}
						tab[wp<<nr] = -7
						Table(tab[:wp<<nr], wp, rows, stride, w, nr)
						if tab[wp<<nr] != -7 {
							t.Fatal("wrote past the table")
						}
						if want == nil {
							want = tab
							for mask := 0; mask < 1<<nr; mask++ {
								for c := 0; c < wp; c++ {
									s, mag := 0.0, 0.0
									for k := 0; k < nr && c < w; k++ {
										if mask&(1<<k) != 0 {
											s += rows[k*stride+c]
											mag += math.Abs(rows[k*stride+c])
										}
									}
									if got := tab[mask*wp+c]; math.IsNaN(got) || math.Abs(got-s) > 1e-15*mag {
										t.Fatalf("mask %d, entry %d: %v, direct %v", mask, c, got, s)
									}
								}
							}
							return
						}
						for i := range want {
							if math.Float64bits(tab[i]) != math.Float64bits(want[i]) {
								t.Fatalf("entry %d: %v, Go path %v", i, tab[i], want[i])
							}
						}
					})
				}
			}
		}
	}
}

// TestMaskedSums: every path gives the Go path's bits (acc starting at
// nonzero values), and the Go path the direct sum of the selected entries
// of each permutation's row (relative 1e-15 of the sum of magnitudes).
func TestMaskedSums(t *testing.T) {
	r := rng.New(2, rng.Stream(0x73756273))
	for _, wp := range []int{8, 32, 64} {
		for _, sh := range []struct{ shift, cshift uint }{{0, 0}, {24, 32}, {56, 63 - uint(wp) + 1}} {
			const nb = 37
			tab := randomRows(r, 256*wp)
			masks, cols := make([]uint64, nb+1), make([]uint64, nb+1)
			for b := range masks {
				masks[b] = r.Uint64()
				cols[b] = r.Uint64()
			}
			masks[3] &^= 255 << sh.shift // the zero row
			cols[5] = math.MaxUint64
			acc0 := randomRows(r, Lanes*nb+1)
			var want []float64
			for _, l := range levels() {
				t.Run(fmt.Sprintf("%v/wp=%d/shift=%d/cshift=%d", l, wp, sh.shift, sh.cshift), func(t *testing.T) {
					defer cpufeat.Use(l)()
					acc := append([]float64(nil), acc0...)
					MaskedSums(acc[:Lanes*nb], tab, wp, masks, sh.shift, cols[:nb], sh.cshift)
					if acc[Lanes*nb] != acc0[Lanes*nb] {
						t.Fatal("wrote past acc")
					}
					if want == nil {
						want = acc
						for b := 0; b < nb; b++ {
							m := int(masks[b]>>sh.shift) & 255
							bs := cols[b] >> sh.cshift
							for ln := 0; ln < Lanes; ln++ {
								s, mag := acc0[Lanes*b+ln], math.Abs(acc0[Lanes*b+ln])
								for c := ln; c < wp; c += Lanes {
									if bs>>c&1 != 0 {
										s += tab[m*wp+c]
										mag += math.Abs(tab[m*wp+c])
									}
								}
								if got := acc[Lanes*b+ln]; math.Abs(got-s) > 1e-15*mag {
									t.Fatalf("permutation %d lane %d: %v, direct %v", b, ln, got, s)
								}
							}
						}
						return
					}
					for i := range want {
						if math.Float64bits(acc[i]) != math.Float64bits(want[i]) {
							t.Fatalf("lane %d: %v, Go path %v", i, acc[i], want[i])
						}
					}
				})
			}
		}
	}
}
