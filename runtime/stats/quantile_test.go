package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestQuantileType7(t *testing.T) {
	x := []float64{4, 1, 3, 2}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {1, 4}, {0.5, 2.5}, {0.25, 1.75}, {0.9, 3.7}} {
		if got := Quantile(x, c.p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if x[0] != 4 {
		t.Error("Quantile sorted its argument")
	}
	if got := SortedQuantile([]float64{1, 2, 3, 4}, 0.9); math.Abs(got-3.7) > 1e-12 {
		t.Errorf("SortedQuantile(0.9) = %v, want 3.7", got)
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile of nothing = %v, want NaN", got)
	}
	if got := Quantile([]float64{7}, 0.3); got != 7 {
		t.Errorf("Quantile of one value = %v, want 7", got)
	}
}

func TestNormalQuantile(t *testing.T) {
	for _, p := range []float64{0.001, 0.025, 0.3, 0.5, 0.8, 0.975, 0.999} {
		if got, want := NormalQuantile(p), distuv.UnitNormal.Quantile(p); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("NormalQuantile(%v) = %v, gonum %v", p, got, want)
		}
	}
	if got := NormalQuantile(0.975); math.Abs(got-1.959963984540054) > 1e-12 {
		t.Errorf("NormalQuantile(0.975) = %v", got)
	}
}
