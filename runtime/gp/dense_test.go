package gp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSandwich checks K·R·K and its diagonal on dense storage against the
// triple sum Σₐ Σᵦ Kᵢₐ Rₐᵦ Kᵦⱼ, and A·R against the double sum, at an order
// above blas3's DGEMM threshold.
func TestSandwich(t *testing.T) {
	const n = 41
	rng := rand.New(rand.NewPCG(39, 1))
	sym := func() *mat.SymDense {
		s := mat.NewSymDense(n, nil)
		for i := range n {
			for j := i; j < n; j++ {
				s.SetSym(i, j, rng.NormFloat64())
			}
		}
		return s
	}
	K, R := sym(), sym()
	full := sandwich(K, R)
	a := mat.NewDense(7, n, nil)
	for i := range 7 {
		for j := range n {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	as := mulSym(a, R)
	for i := range 7 {
		for j := range n {
			want := 0.0
			for b := range n {
				want += a.At(i, b) * R.At(b, j)
			}
			if math.Abs(as.At(i, j)-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("(AR)[%d,%d] = %v, want %v", i, j, as.At(i, j), want)
			}
		}
	}
	diag := diagSandwich(K, R)
	for i := range n {
		for j := range n {
			want := 0.0
			for a := range n {
				for b := range n {
					want += K.At(i, a) * R.At(a, b) * K.At(b, j)
				}
			}
			if math.Abs(full[i*n+j]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("(KRK)[%d,%d] = %v, want %v", i, j, full[i*n+j], want)
			}
			if i == j && math.Abs(diag[i]-want) > 1e-12*(1+math.Abs(want)) {
				t.Fatalf("diag(KRK)[%d] = %v, want %v", i, diag[i], want)
			}
		}
	}
}
