package plot

import (
	"math"
	"testing"
)

// TestLineBreaksAtNonFinite checks that a line is split into the runs of
// finite points between NaNs and infinities, rather than drawn across them.
func TestLineBreaksAtNonFinite(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	runs := finiteRuns(indexXY([]float64{1, nan, inf, 3, 2, nan, 1, 1.5, 2, -inf}))
	var got [][]float64
	for _, r := range runs {
		var xs []float64
		for _, q := range r {
			xs = append(xs, q.X)
		}
		got = append(got, xs)
	}
	want := [][]float64{{1}, {4, 5}, {7, 8, 9}}
	if len(got) != len(want) {
		t.Fatalf("runs at indices %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || got[i][0] != want[i][0] {
			t.Errorf("runs at indices %v, want %v", got, want)
		}
	}
	if runs := finiteRuns(indexXY([]float64{nan, inf})); len(runs) != 0 {
		t.Errorf("all non-finite: %d runs", len(runs))
	}
}
