package blas3

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lowerTest returns a random lower-triangular n×n matrix (row-major,
// upper triangle zero) with a dominant diagonal, so that its inverse is
// well conditioned.
func lowerTest(rng *rand.Rand, n int) []float64 {
	l := make([]float64, n*n)
	for i := range n {
		for j := range i {
			l[i*n+j] = rng.Float64()*2 - 1
		}
		l[i*n+i] = float64(n)/4 + 1 + rng.Float64()
	}
	return l
}

// TestInvLower checks invLower (halves with DGEMMs) at every order up to
// trsmBlock against the row-by-row substitution and by L·L⁻¹ = I.
func TestInvLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 1))
	for n := 1; n <= trsmBlock; n++ {
		l := lowerTest(rng, n)
		got := append([]float64(nil), l...)
		invLower(got, n, make([]float64, n*n/4))
		want := append([]float64(nil), l...)
		invLowerRows(want, n, n)
		scale := 0.0
		for _, v := range want {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range n {
			for j := range n {
				if d := math.Abs(got[i*n+j] - want[i*n+j]); d > 1e-13*scale || (j > i && got[i*n+j] != 0) {
					t.Fatalf("n=%d: inverse[%d,%d] = %g, substitution %g", n, i, j, got[i*n+j], want[i*n+j])
				}
				s := 0.0
				for p := range n {
					s += l[i*n+p] * got[p*n+j]
				}
				if i == j {
					s--
				}
				if math.Abs(s) > 1e-13 {
					t.Fatalf("n=%d: (L·L⁻¹ − I)[%d,%d] = %g", n, i, j, s)
				}
			}
		}
	}
}

// BenchmarkInvLower times the inverse of a 64×64 lower-triangular block
// (trsm's diagonal blocks) by halves (invLower) and row by row.
func BenchmarkInvLower(b *testing.B) {
	rng := rand.New(rand.NewPCG(39, 2))
	n := trsmBlock
	l := lowerTest(rng, n)
	w, tmp := make([]float64, n*n), make([]float64, n*n/4)
	b.Run("halves", func(b *testing.B) {
		for range b.N {
			copy(w, l)
			invLower(w, n, tmp)
		}
	})
	b.Run("rows", func(b *testing.B) {
		for range b.N {
			copy(w, l)
			invLowerRows(w, n, n)
		}
	})
}
