package ktest

import (
	"context"
	"math"
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

// TestBKLSensitivityIsTheRuleAtEachCell: each cell of the sensitivity grid
// is ChooseBKL at that landmark count and τ² (same seed and draws), the
// centre is the choice itself, a count that cannot be held out is NaN, and
// a spread above SensitiveFactor is added to the fragility.
func TestBKLSensitivityIsTheRuleAtEachCell(t *testing.T) {
	rng := rand.New(rand.NewPCG(4010, 1))
	x := randomPoints(rng, 60, 1)
	for i := 0; i < 30; i++ {
		x.Set(i, 0, x.At(i, 0)+6)
	}
	ctx := context.Background()
	c, err := ChooseBKL(ctx, x, 5, BKLOptions{Landmarks: 12, Tau2: 1, Draws: 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ChooseBKLSensitivity(ctx, x, 5, &c)
	if err != nil {
		t.Fatal(err)
	}
	if s.M[0] != 6 || s.M[2] != 24 || s.Tau2[0] != 0.25 || s.Tau2[2] != 4 || s.Ell[1][1] != c.Ell[0] {
		t.Fatalf("grid %v × %v, centre %v, choice %v", s.M, s.Tau2, s.Ell[1][1], c.Ell[0])
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, m := range s.M {
		for j, tau2 := range s.Tau2 {
			want, err := ChooseBKL(ctx, x, 5, BKLOptions{Landmarks: m, Tau2: tau2, Draws: 2})
			if err != nil {
				t.Fatal(err)
			}
			if s.Ell[i][j] != want.Ell[0] {
				t.Errorf("m = %d, τ² = %g: %v, ChooseBKL gives %v", m, tau2, s.Ell[i][j], want.Ell[0])
			}
			lo, hi = math.Min(lo, want.Ell[0]), math.Max(hi, want.Ell[0])
		}
	}
	if s.Ratio != hi/lo {
		t.Errorf("ratio %v, want %v", s.Ratio, hi/lo)
	}
	if (s.Ratio > SensitiveFactor) != strings.Contains(c.Fragile, "ℓ̂ runs from") {
		t.Errorf("ratio %v but fragile %q", s.Ratio, c.Fragile)
	}
	t.Logf("ℓ̂ %v, ratio %.3g, fragile %q", s.Ell, s.Ratio, c.Fragile)
	// 2m = 70 of 35 rows cannot be held out.
	c2, err := ChooseBKL(ctx, x.Slice(0, 35, 0, 1).(*mat.Dense), 5, BKLOptions{Landmarks: 20, Draws: 1})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := ChooseBKLSensitivity(ctx, x.Slice(0, 35, 0, 1).(*mat.Dense), 5, &c2)
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(s2.Ell[2][0]) || math.IsNaN(s2.Ell[0][0]) {
		t.Errorf("m = 40 of 35 rows should be NaN, m = 10 not: %v", s2.Ell)
	}
}
