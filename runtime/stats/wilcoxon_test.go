package stats

import (
	"math"
	"testing"
)

// TestWilcoxonAgainstScipy: p-values from scipy.stats.wilcoxon (SciPy
// 1.10, method "exact" on differences without ties, or "approx" with
// correction=False), computed outside this repository; scipy's statistic
// is min(W+, W−). (SciPy's "exact" ignores ties, so tied data are checked
// against a second algorithm below instead.)
func TestWilcoxonAgainstScipy(t *testing.T) {
	d3 := make([]float64, 25)
	for i := range d3 {
		d3[i] = float64(i + 1)
		if i%5 == 1 {
			d3[i] = -d3[i]
		}
	}
	cases := []struct {
		d       []float64
		minW, p float64
		exact   bool
	}{
		{[]float64{0.3, -0.1, 0.45, 0.8, 0.25, -0.6, 0.9, 1.1, 0.05, 0.7, -0.35, 0.55}, 15, 0.06396484375, true},
		{[]float64{1.5, -0.5, 2, 3, -1, 2.5, 0.7, 4}, 4, 0.0546875, true},
		{d3, 60, 0.005816358945786271, false},
	}
	for i, c := range cases {
		r, err := Wilcoxon(c.d)
		if err != nil {
			t.Fatal(err)
		}
		wm := float64(r.N*(r.N+1))/2 - r.W
		if got := math.Min(r.W, wm); got != c.minW || r.Exact != c.exact || math.Abs(r.P-c.p) > 1e-9 {
			t.Errorf("case %d: min(W+, W−) %v p %v exact %v; scipy %v %v %v", i, got, r.P, r.Exact, c.minW, c.p, c.exact)
		}
	}
	if _, err := Wilcoxon([]float64{0, 0}); err == nil {
		t.Error("all zero: no error")
	}
	if _, err := Wilcoxon([]float64{1, math.NaN()}); err == nil {
		t.Error("NaN: no error")
	}
}

// TestWilcoxonTiesByConvolution: with tied |d| (midranks) the exact
// p-value equals the one from the null distribution of W built by
// convolving the two-point distributions {0, rank_i} (a dynamic programme
// in half-units, independent of the enumeration), zeros dropped.
func TestWilcoxonTiesByConvolution(t *testing.T) {
	d := []float64{-1, 2, 1, 3, 2, -1, 4, 2, 3, 1, 0, -2.5}
	half := []int{5, 12, 5, 19, 12, 5, 22, 12, 19, 5, 16} // 2·midranks of the non-zero |d|
	dist := map[int]float64{0: 1}
	for _, h := range half {
		next := map[int]float64{}
		for s, p := range dist {
			next[s] += p / 2
			next[s+h] += p / 2
		}
		dist = next
	}
	w2 := 12 + 5 + 19 + 12 + 22 + 12 + 19 + 5 // positive d: 2, 1, 3, 2, 4, 2, 3, 1
	m2 := 11 * 12 / 2
	want := 0.0
	for s, p := range dist {
		if abs(s-m2) >= abs(w2-m2) {
			want += p
		}
	}
	r, err := Wilcoxon(d)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 11 || 2*r.W != float64(w2) || math.Abs(r.P-want) > 1e-12 {
		t.Errorf("N %d W %v p %v; want 11, %v, %v", r.N, r.W, r.P, float64(w2)/2, want)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
