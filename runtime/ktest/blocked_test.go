package ktest

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// TestBlockedStatisticsMatchDense: the blockwise MMD² and HSIC equal the
// statistics from the full Gram matrices, for every estimator, with blocks
// that do not divide the sample.
func TestBlockedStatisticsMatchDense(t *testing.T) {
	r := rng.New(91, rng.Builtin)
	x := randomPoints(r, 150, 3)
	y := randomPoints(r, 130, 3)
	k := must(kernels.NewRBF([]float64{0.9}))
	for _, est := range []Estimator{Unbiased, Biased, Linear} {
		want, err := MMD2(k, x, y, est)
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{1, 7, 64, 1000} {
			got, err := MMD2Blocked(k, x, y, est, rows)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("MMD² %s, %d rows a block: %v, dense %v", est, rows, got, want)
			}
		}
	}
	y2 := randomPoints(r, 150, 2)
	ky := must(kernels.NewRBF([]float64{1.3}))
	for _, est := range []Estimator{Biased, Unbiased} {
		want, err := HSIC(k, ky, x, y2, est)
		if err != nil {
			t.Fatal(err)
		}
		for _, rows := range []int{1, 11, 150} {
			got, err := HSICBlocked(k, ky, x, y2, est, rows)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12*math.Max(1e-3, math.Abs(want)) {
				t.Errorf("HSIC %s, %d rows a block: %v, dense %v", est, rows, got, want)
			}
		}
	}
}
