package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/kml-lang/kml/lang/eval"
)

// A few log-spaced x values (dimensions 2, 4, …, 64) get a labelled tick
// each, where the decade ticks labelled only 10; a long log grid (a
// profile) keeps the decades.
func TestLogAxisTicksAtFewValues(t *testing.T) {
	dims := []float64{2, 4, 8, 16, 32, 64}
	p := plot.New()
	r := eval.NewRecord().Set("d", vec(dims...)).Set("a", vec(1, 2, 3, 4, 5, 6)).Set("b", vec(6, 5, 4, 3, 2, 1))
	if _, _, err := plotRecord(p, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"2", "4", "8", "16", "32", "64"}; len(labels) != len(want) || labels[0] != "2" || labels[5] != "64" {
		t.Errorf("tick labels %v, want %v", labels, want)
	}
	grid := make([]float64, 100)
	for i := range grid {
		grid[i] = math.Pow(10, -3+5*float64(i)/99)
	}
	q := plot.New()
	if _, _, err := plotRecord(q, eval.NewRecord().Set("ell", vec(grid...)).Set("logp", vec(grid...)), nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := q.X.Tick.Marker.(plot.LogTicks); !ok {
		t.Errorf("a 100-point log grid's ticks are %T, want the decades", q.X.Tick.Marker)
	}
}

// Rejection rates with standard errors: the bars stop at 0 and 1, the y
// axis is [0, 1] (no strip above 1 for the legend, which goes where the
// lines leave room: here the middle of the right edge, as lines at 0 and 1
// fill the corners), and a series outside [0, 1] keeps the old axis.
func TestRatesStayInUnitInterval(t *testing.T) {
	eps := []float64{0.5, 1, 2, 4, 6, 8, 10, 15}
	r := eval.NewRecord().Set("eps", vec(eps...)).
		Set("median", vec(0, 0, 0, 0, 0, 0, 0, 0)).Set("median_se", vec(0, 0, 0, 0, 0, 0, 0, 0)).
		Set("bkl", vec(0, 0, 0.3, 1, 1, 1, 1, 1)).Set("bkl_se", vec(0, 0, 0.1, 0, 0, 0, 0, 0)).
		Set("bayes", vec(0, 0.05, 0.6, 0.98, 1, 1, 1, 1)).Set("bayes_se", vec(0, 0.05, 0.22, 0.03, 0, 0, 0, 0))
	p := plot.New()
	if _, _, err := plotRecord(p, r, nil, nil); err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max != 1 {
		t.Errorf("rates: y axis [%g, %g], want [0, 1]", p.Y.Min, p.Y.Max)
	}
	if p.Legend.Top || p.Legend.Left || p.Legend.YOffs <= 0 {
		t.Errorf("legend top %v left %v y offset %v: want the middle of the right edge", p.Legend.Top, p.Legend.Left, p.Legend.YOffs)
	}
	if got := errorBarPoints(plotter.XYs{{X: 1, Y: 0.98}, {X: 2, Y: 0.5}}, []float64{0.03, 0.03}, 0, 1); got[1].Y != 1 || math.Abs(got[0].Y-0.95) > 1e-12 || got[3].Y != 0.53 {
		t.Errorf("0.98 ± 0.03 and 0.5 ± 0.03 cut to [0, 1]: %v", got)
	}
	q := plot.New()
	r2 := eval.NewRecord().Set("x", vec(1, 2, 3)).Set("a", vec(0.2, 1.2, 0.5)).Set("a_se", vec(0.1, 0.1, 0.1))
	if _, _, err := plotRecord(q, r2, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !(q.Y.Max > 1.2) {
		t.Errorf("a series above 1: y axis up to %g", q.Y.Max)
	}
}
