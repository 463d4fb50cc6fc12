package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
)

// With three lines spanning [1, 3] (error bars to 0.5 and 3.5), the y
// axis must reach 0.08 × 3 × 3 = 0.72 below 0.5 and 0.09 above 3.5; a NaN
// value or SE is skipped, and an error bar at a NaN is not drawn. With
// the legend at the top the 0.72 goes above 3.5 and 0.09 below 0.5.
func TestLegendRoomAndNaNErrorBars(t *testing.T) {
	p := plot.New()
	vecs := map[string][]float64{
		"a": {1, 2, math.NaN()}, "a_se": {0.5, math.NaN(), 1},
		"b": {2, 2, 2},
		"c": {3, 3, 3}, "c_se": {0.5, 0, 0},
	}
	legendRoom(p, vecs, []string{"a", "b", "c"}, false)
	if want := 0.5 - 0.72; math.Abs(p.Y.Min-want) > 1e-12 {
		t.Errorf("y min %g, want %g", p.Y.Min, want)
	}
	if want := 3.5 + 0.09; math.Abs(p.Y.Max-want) > 1e-12 {
		t.Errorf("y max %g, want %g", p.Y.Max, want)
	}
	// With the legend at the top the room goes above the lines instead.
	q := plot.New()
	legendRoom(q, vecs, []string{"a", "b", "c"}, true)
	if want := 0.5 - 0.09; math.Abs(q.Y.Min-want) > 1e-12 {
		t.Errorf("legend on top: y min %g, want %g", q.Y.Min, want)
	}
	if want := 3.5 + 0.72; math.Abs(q.Y.Max-want) > 1e-12 {
		t.Errorf("legend on top: y max %g, want %g", q.Y.Max, want)
	}
	if err := addErrorBars(p, indexXY(vecs["a"]), vecs["a_se"], lineColors[0]); err != nil {
		t.Errorf("NaN value or SE: %v", err)
	}
}
