package kbr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestExactOpMatchesLU holds the exact operator, factorised by getrf
// directly, to the bit against the same formula through mat.LU (which
// also estimates the condition number), with weights μ of both signs.
func TestExactOpMatchesLU(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 0x6f7073)) // "ops"
	for _, n := range []int{1, 5, 70} {
		y := randMat(r, n, 2, 1)
		k, _ := kernels.NewRBF([]float64{0.8})
		gy, err := kernels.Gram(k, y)
		if err != nil {
			t.Fatal(err)
		}
		mu := make([]float64, n)
		for i := range mu {
			mu[i] = (r.Float64() - 0.3) / float64(n)
		}
		const delta = 1e-7
		op, err := newExactOp(gy, mu, delta)
		if err != nil {
			t.Fatal(err)
		}
		obs := randMat(r, n, 3, 1)
		got := op.apply(obs)
		// The reference: B = ΛG_Y, R k = B (B² + δI)⁻¹ Λ k by mat.LU.
		b := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				b.Set(i, j, mu[i]*gy.At(i, j))
			}
		}
		var a mat.Dense
		a.Mul(b, b)
		for i := 0; i < n; i++ {
			a.Set(i, i, a.At(i, i)+delta)
		}
		var lu mat.LU
		lu.Factorize(&a)
		var z, want mat.Dense
		if err := lu.SolveTo(&z, false, scaleRows(mu, obs)); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				t.Fatal(err)
			}
		}
		want.Mul(b, &z)
		for i := 0; i < n; i++ {
			for j := 0; j < 3; j++ {
				if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
					t.Fatalf("n = %d: w[%d,%d] = %.17g, mat.LU %.17g", n, i, j, g, w)
				}
			}
		}
	}
}
