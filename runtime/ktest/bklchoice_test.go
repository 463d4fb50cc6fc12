package ktest

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestDefaultLandmarks(t *testing.T) {
	for _, c := range []struct{ n, d, want int }{
		{40, 1, 8},      // n/5
		{320, 1, 50},    // the floor 50
		{1800, 2, 50},   // √1800 = 42.4 < 50
		{10000, 2, 100}, // √n
		{600, 61, 62},   // more than the dimension
		{100, 61, 0},    // impossible: would hold out more than half
	} {
		if got := DefaultLandmarks(c.n, c.d); got != c.want {
			t.Errorf("DefaultLandmarks(%d, %d) = %d, want %d", c.n, c.d, got, c.want)
		}
	}
	if DefaultTau2(50) != 5 || DefaultTau2(10) != 1 {
		t.Errorf("DefaultTau2: %g, %g", DefaultTau2(50), DefaultTau2(10))
	}
}

// The record of a BKL choice: the settings used, and the fragility verdict
// on a well-separated grid of clusters (stable) and on a sample whose
// landmark draws disagree (fragile).
func TestChooseBKLFragile(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	grid := mat.NewDense(450, 2, nil)
	for i := 0; i < 450; i++ {
		grid.Set(i, 0, 10*float64(i%3)+r.NormFloat64())
		grid.Set(i, 1, 10*float64(i/3%3)+r.NormFloat64())
	}
	c, err := ChooseBKL(context.Background(), grid, 1, BKLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Landmarks != 50 || c.Tau2 != 5 || c.Draws != DefaultDraws || len(c.DrawEll) != DefaultDraws || len(c.Maxima) == 0 {
		t.Fatalf("settings: m %d τ² %g draws %d, %d draw choices, %d maxima", c.Landmarks, c.Tau2, c.Draws, len(c.DrawEll), len(c.Maxima))
	}
	if c.Fragile != "" || c.Ell[0] < 0.5 || c.Ell[0] > 3 {
		t.Errorf("grid: ℓ = %g (within-cluster scale expected), fragile %q", c.Ell[0], c.Fragile)
	}
	// Twelve points: four landmarks leave the choice to chance.
	small := mat.NewDense(12, 1, nil)
	for i := 0; i < 12; i++ {
		small.Set(i, 0, r.NormFloat64())
	}
	c, err = ChooseBKL(context.Background(), small, 1, BKLOptions{Landmarks: 4, Tau2: 1, Draws: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Fragile, "landmark draws alone choose") {
		t.Errorf("12 points, 4 landmarks: draws %v, fragile %q", c.DrawEll, c.Fragile)
	}
}
