package plot

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/kml-lang/kml/lang/infer"
)

// TestOverlayBandwidth: the overlay's one bandwidth is Silverman's rule
// for the observed data, computed here by hand (sd with n − 1, IQR from
// the empirical quantiles); data without spread take the replicates'.
func TestOverlayBandwidth(t *testing.T) {
	y := []float64{0.3, -0.2, 1.1, 0.5, 0.1}
	n := float64(len(y))
	mean := 0.0
	for _, v := range y {
		mean += v / n
	}
	ss := 0.0
	for _, v := range y {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / (n - 1))
	s := append([]float64(nil), y...)
	sort.Float64s(s)
	// Empirical quantiles of 5 sorted values: 0.25 → the 2nd, 0.75 → the 4th.
	iqr := s[3] - s[1]
	want := 0.9 * math.Min(sd, iqr/1.34) * math.Pow(n, -0.2)
	h, ok := overlayBandwidth(y, [][]float64{{5, 6, 7, 8, 9}})
	if !ok || math.Abs(h-want) > 1e-15 {
		t.Errorf("bandwidth %v, want %v", h, want)
	}
	h, ok = overlayBandwidth([]float64{2, 2, 2}, [][]float64{{1, 2, 3}, {2, 4, 0}})
	if !ok || !(h > 0) {
		t.Errorf("no spread in the data: bandwidth %v %v, want the replicates'", h, ok)
	}
}

// TestGaussianKDE integrates to 1 over a grid wide enough (trapezoid
// rule) and peaks at a lone cluster's centre.
func TestGaussianKDE(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 7)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	grid := make([]float64, 2001)
	for i := range grid {
		grid[i] = -10 + 20*float64(i)/2000
	}
	pts := gaussianKDE(xs, 0.4, grid)
	area := 0.0
	for i := 1; i < len(pts); i++ {
		area += (pts[i].X - pts[i-1].X) * (pts[i].Y + pts[i-1].Y) / 2
	}
	if math.Abs(area-1) > 1e-9 {
		t.Errorf("density integrates to %v", area)
	}
}

// TestCountsPanel: whole-number data are drawn as frequencies, the
// replicates' median and 90% interval of each value's count computed here
// by hand; data with a fraction are not whole numbers.
func TestCountsPanel(t *testing.T) {
	if wholeNumbers([]float64{1, 2}, [][]float64{{1, 2.5}}) || !wholeNumbers([]float64{1, 2}, [][]float64{{0, 3}}) {
		t.Fatal("wholeNumbers")
	}
	r := rand.New(rand.NewPCG(5, 6))
	d := infer.PredictiveData{Name: "c", Observed: []float64{0, 1, 1, 2, 3}}
	for range 101 {
		row := make([]float64, 5)
		for j := range row {
			row[j] = float64(r.IntN(4))
		}
		d.Rows = append(d.Rows, row)
	}
	f, ok := frequencies(d.Observed, d.Rows)
	if !ok || f.lo != 0 || f.width != 1 || len(f.obs) != 4 {
		t.Fatalf("bins from %v of width %v: %d", f.lo, f.width, len(f.obs))
	}
	if f.obs[0] != 1 || f.obs[1] != 2 || f.obs[2] != 1 || f.obs[3] != 1 {
		t.Errorf("data counts %v", f.obs)
	}
	// The replicates' counts of value 1, by hand: median the 51st of
	// 101, 5% quantile the 6th (stat.Empirical: ⌈0.05·101⌉), 95% the 96th.
	var ones []float64
	for _, row := range d.Rows {
		c := 0.0
		for _, x := range row {
			if x == 1 {
				c++
			}
		}
		ones = append(ones, c)
	}
	sort.Float64s(ones)
	if f.med[1] != ones[50] || f.q5[1] != ones[5] || f.q95[1] != ones[95] {
		t.Errorf("value 1: median %v [%v, %v], by hand %v [%v, %v]", f.med[1], f.q5[1], f.q95[1], ones[50], ones[5], ones[95])
	}
	wide, _ := frequencies([]float64{100, 250}, [][]float64{{120, 180}})
	if wide.width != 4 || len(wide.obs) != 38 {
		t.Errorf("151 values in bins of %v: %d bins, want 4 and 38", wide.width, len(wide.obs))
	}
	if _, err := countsPanel(&infer.Predictive{Kind: "posterior_predictive"}, d); err != nil {
		t.Fatal(err)
	}
}
