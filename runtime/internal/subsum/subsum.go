package subsum

import (
	"fmt"
	"math/bits"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// Lanes is the number of partial sums MaskedSums keeps per permutation.
const Lanes = 8

// MaxRows is the most rows a table has subsets of (masks are bytes).
const MaxRows = 8

// Table sets t[mask·wp : mask·wp+w] = Σ_{k in mask} rows[k·stride : k·stride+w]
// for 0 ≤ mask < 2^nr, the entries t[mask·wp+w : (mask+1)·wp] to zero, and
// each sum as the sum of the smaller subset mask minus its lowest row plus
// that row, one rounding per entry. w ≤ wp, nr ≤ MaxRows.
func Table(t []float64, wp int, rows []float64, stride, w, nr int) {
	if nr < 0 || nr > MaxRows || w < 0 || w > wp || len(t) < wp<<nr ||
		(nr > 0 && len(rows) < (nr-1)*stride+w) {
		panic(fmt.Sprintf("subsum: Table with nr = %d, w = %d, wp = %d, stride = %d, len(t) = %d, len(rows) = %d",
			nr, w, wp, stride, len(t), len(rows)))
	}
	clear(t[:wp])
	if nr == 0 {
		return
	}
	if w == wp && tableVec(t, wp, rows, stride, nr) {
		return
	}
	tableGo(t, wp, rows, stride, w, nr)
}

func tableGo(t []float64, wp int, rows []float64, stride, w, nr int) {
	for mask := 1; mask < 1<<nr; mask++ {
		k := bits.TrailingZeros(uint(mask))
		dst := t[mask*wp : (mask+1)*wp]
		src := t[(mask&(mask-1))*wp:][:w]
		row := rows[k*stride:][:w]
		for c, v := range row {
			dst[c] = src[c] + v
		}
		clear(dst[w:])
	}
}

// MaskedSums adds to the eight lanes acc[8b : 8b+8] of each permutation
// b < len(cols) the entries of table row m_b = (masks[b] >> shift) & 255,
// t[m_b·wp : m_b·wp+wp], whose bits are set in cols[b] >> cshift: lane l
// adds entry c = l, l+8, … (c < wp) when bit c is set, in that order.
// wp is a multiple of 8, at most 64; the table has the rows the masks
// name.
func MaskedSums(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint) {
	nb := len(cols)
	if wp <= 0 || wp%Lanes != 0 || wp > 64 || shift > 56 || cshift > 63 || len(masks) < nb || len(acc) < Lanes*nb {
		panic(fmt.Sprintf("subsum: MaskedSums with wp = %d, shift = %d, cshift = %d, %d masks, %d cols, %d lanes",
			wp, shift, cshift, len(masks), nb, len(acc)))
	}
	if nb == 0 {
		return
	}
	for b := 0; b < nb; b++ {
		if m := int(masks[b]>>shift) & 255; len(t) < (m+1)*wp {
			panic(fmt.Sprintf("subsum: MaskedSums: mask %d needs %d table entries, have %d", m, (m+1)*wp, len(t)))
		}
	}
	if maskedVec(acc, t, wp, masks, shift, cols, cshift) {
		return
	}
	maskedGo(acc, t, wp, masks, shift, cols, cshift)
}

func maskedGo(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint) {
	for b, cb := range cols {
		m := int(masks[b]>>shift) & 255
		row := t[m*wp : (m+1)*wp]
		a := (*[Lanes]float64)(acc[Lanes*b:])
		bs := cb >> cshift
		for q := 0; q < wp; q += Lanes {
			for l := 0; l < Lanes; l++ {
				if bs&(1<<(q+l)) != 0 {
					a[l] += row[q+l]
				}
			}
		}
	}
}

// Vectorised reports which kernels run: "avx512", "avx2" or "none".
func Vectorised() string { return cpufeat.Vector.String() }
