package plot

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKDEStaysInSupport checks that the density of positive draws is not
// drawn below 0 and, reflected at the boundary, is not bent down to zero
// there: for Exponential(1) draws it is near 1 at the smallest draw.
func TestKDEStaysInSupport(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 4000)
	for i := range xs {
		xs[i] = r.ExpFloat64()
	}
	gx, gy := kde(xs, 200)
	if gx[0] < 0 {
		t.Errorf("grid starts at %g, below the support", gx[0])
	}
	if gy[0] < 0.8 || gy[0] > 1.2 {
		t.Errorf("density at the boundary %g, want near 1", gy[0])
	}
	// It still integrates to about 1 over the grid.
	s := 0.0
	for i := 1; i < len(gx); i++ {
		s += (gx[i] - gx[i-1]) * (gy[i] + gy[i-1]) / 2
	}
	if math.Abs(s-1) > 0.03 {
		t.Errorf("integral %g, want 1", s)
	}
}
