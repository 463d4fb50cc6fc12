package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestGreedyVariance replays the selection by brute force: after each
// prefix S of the chosen rows, the next one must be the row maximising
// k(x, x) − k(x, S)K_SS⁻¹k(S, x), computed with a dense inverse; and a
// duplicated row is never taken twice.
func TestGreedyVariance(t *testing.T) {
	x, _ := testData(50, 2, 399)
	x.SetRow(7, x.RawRowView(3)) // a duplicate
	k := sgprKernel()
	z, err := GreedyVariance(k, x, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := z.Dims(); r != 8 {
		t.Fatalf("chose %d points, want 8", r)
	}
	n, _ := x.Dims()
	for j := 0; j < 8; j++ {
		best, bestV := -1, math.Inf(-1)
		var inv mat.Dense
		var s *mat.Dense
		if j > 0 {
			s = mat.DenseCopyOf(z.Slice(0, j, 0, 2))
			g, _ := kernels.Gram(k, s)
			if err := inv.Inverse(g); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < n; i++ {
			xi := x.RawRowView(i)
			v := k.Eval(xi, xi)
			if j > 0 {
				c, _ := kernels.Cross(k, s, x.Slice(i, i+1, 0, 2).(*mat.Dense))
				v -= mat.Inner(c.ColView(0), &inv, c.ColView(0))
			}
			if v > bestV+1e-9 {
				best, bestV = i, v
			}
		}
		if !mat.Equal(mat.NewVecDense(2, x.RawRowView(best)), mat.NewVecDense(2, z.RawRowView(j))) {
			t.Fatalf("step %d chose %v, brute force %v (variance %.6g)", j, z.RawRowView(j), x.RawRowView(best), bestV)
		}
	}
	// Three distinct rows: at most three points, whatever m asks.
	x3 := mat.NewDense(6, 1, []float64{0, 1, 2, 0, 1, 2})
	rbf, _ := kernels.NewRBF([]float64{1})
	z3, err := GreedyVariance(rbf, x3, 6, 1e-10)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := z3.Dims(); r != 3 {
		t.Errorf("chose %d points from 3 distinct rows", r)
	}
}
