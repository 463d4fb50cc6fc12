package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// oldBoxHeight is the legend height these cases were written for, a
// fixed 7% of the plot per series.
func oldBoxHeight(series int) float64 { return math.Min(0.6, 0.07*float64(series)+0.05) }

func curve(n int, f func(x float64) float64, x0, x1 float64) plotter.XYs {
	pts := make(plotter.XYs, n)
	for i := range pts {
		x := x0 + (x1-x0)*float64(i)/float64(n-1)
		pts[i] = plotter.XY{X: x, Y: f(x)}
	}
	return pts
}

// TestLegendCorner: the legend goes to the corner its lines leave free,
// bottom right when that is free (gonum's default).
func TestLegendCorner(t *testing.T) {
	rising := curve(100, func(x float64) float64 { return x }, 0, 1)   // bottom left to top right
	falling := curve(100, func(x float64) float64 { return -x }, 0, 1) // top left to bottom right
	cases := []struct {
		name      string
		lines     []plotter.XYs
		logX      bool
		top, left bool
	}{
		{"rising leaves bottom right free", []plotter.XYs{rising}, false, false, false},
		{"falling fills bottom right", []plotter.XYs{falling}, false, true, false},
		{"right and bottom edges leave top left", []plotter.XYs{
			curve(100, func(float64) float64 { return 0 }, 0, 1),
			{{X: 1, Y: 0}, {X: 1, Y: 0.25}, {X: 1, Y: 0.5}, {X: 1, Y: 0.75}, {X: 1, Y: 1}},
		}, false, true, true},
		{"NaN points are ignored", []plotter.XYs{append(rising, plotter.XY{X: 1, Y: math.NaN()})}, false, false, false},
		// On a log axis from 1 to 1000, a line falling from x = 1 to x = 32
		// and flat at 0 from there fills the bottom right (the right third
		// is x ≥ 90), although on a linear scale it would sit left.
		{"log axis", []plotter.XYs{curve(200, func(x float64) float64 { return math.Max(0, 1-x/32) }, 1, 1000)}, true, true, false},
		{"nothing to measure", []plotter.XYs{{{X: 1, Y: 1}}}, false, false, false},
	}
	for _, c := range cases {
		top, left, _ := legendCorner(c.lines, 0.35, oldBoxHeight(len(c.lines)), c.logX)
		if top != c.top || left != c.left {
			t.Errorf("%s: top %v left %v, want top %v left %v", c.name, top, left, c.top, c.left)
		}
	}
}

// TestPlaceLegendMakesRoom: when every corner holds points, the legend goes
// to the top right and the y axis grows by the legend's height, so the
// legend's box lies above every point.
func TestPlaceLegendMakesRoom(t *testing.T) {
	corners := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 0, Y: 1}, {X: 1, Y: 1}}
	p := plot.New()
	s, err := plotter.NewScatter(corners)
	if err != nil {
		t.Fatal(err)
	}
	p.Add(s)
	names := []string{"a", "b"}
	placeLegend(p, []plotter.XYs{corners}, names, false)
	_, h := legendBox(p, names)
	if !p.Legend.Top || p.Legend.Left {
		t.Errorf("legend top %v left %v, want the top right", p.Legend.Top, p.Legend.Left)
	}
	// The box's bottom, a fraction h of the new range below its top, must
	// be above y = 1.
	if bottom := p.Y.Max - h*(p.Y.Max-p.Y.Min); !(bottom >= 1-1e-12) {
		t.Errorf("y axis up to %v: the legend's box starts at %v, below the points at 1", p.Y.Max, bottom)
	}
	q := plot.New()
	q.Add(s)
	free := plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}}
	placeLegend(q, []plotter.XYs{free}, names, false)
	if q.Y.Max != 1 || q.Legend.Top || q.Legend.Left {
		t.Errorf("with the bottom right free: y max %v, top %v, left %v; want 1, false, false", q.Y.Max, q.Legend.Top, q.Legend.Left)
	}
}

// TestNaNErrorBars: an error bar whose value or SE is NaN is left out, not
// an error, and the error bars count as points where the legend is placed.
func TestNaNErrorBars(t *testing.T) {
	p := plot.New()
	y := []float64{1, 2, math.NaN()}
	se := []float64{0.5, math.NaN(), 1}
	if err := addErrorBars(p, indexXY(y), se, lineColors[0], math.Inf(-1), math.Inf(1)); err != nil {
		t.Errorf("NaN value or SE: %v", err)
	}
	// A flat line at 0 with an error bar of ±1 at one end: the bar's ends
	// fill both corners on its side, so the legend goes to the bottom right
	// when the bar is on the left, and to the top left when it is on the
	// right (where a legend placed from the line alone would cover it).
	flat := plotter.XYs{{X: 0, Y: 0}, {X: 0.5, Y: 0}, {X: 1, Y: 0}}
	leftBar := errorBarPoints(flat, []float64{1, 0, 0}, math.Inf(-1), math.Inf(1))
	if top, left, _ := legendCorner([]plotter.XYs{flat, leftBar}, 0.35, oldBoxHeight(2), false); top || left {
		t.Errorf("bar on the left: top %v left %v, want the bottom right", top, left)
	}
	rightBar := errorBarPoints(flat, []float64{0, 0, 1}, math.Inf(-1), math.Inf(1))
	if top, left, _ := legendCorner([]plotter.XYs{flat, rightBar}, 0.35, oldBoxHeight(2), false); !top || !left {
		t.Errorf("bar on the right: top %v left %v, want the top left", top, left)
	}
}

// TestLegendBoxFitsItsNames: the legend's box grows with its longest name
// and with the number of names, as its text does, so long labels are not
// placed over lines a 35%-wide guess would have missed; the kst_toy
// picture's three long labels with curves peaking under the top left
// corner go above the curves.
func TestLegendBoxFitsItsNames(t *testing.T) {
	p := plot.New()
	short := []string{"a", "b"}
	long := []string{"true density", "kst with the Jacobian (panel D)", "kst on the parabola (panel C)"}
	ws, hs := legendBox(p, short)
	wl, hl := legendBox(p, long)
	textW := float64(p.Legend.TextStyle.Width(long[1]) / (5.2 * vg.Inch))
	if !(wl > textW && wl > ws && hl > hs) {
		t.Errorf("box %v×%v for short names, %v×%v for long (text alone %v wide)", ws, hs, wl, hl, textW)
	}
	// Three bumps: one peaking at 86% of the height under the top left,
	// one at the top right; the bottom corners hold the flat tails.
	bump := func(at, height float64) func(float64) float64 {
		return func(x float64) float64 { return height * math.Exp(-(x-at)*(x-at)/0.2) }
	}
	lines := []plotter.XYs{
		curve(200, bump(-1, 0.6), -4, 4), curve(200, bump(1.6, 0.7), -4, 4), curve(200, bump(1.5, 0.52), -4, 4),
	}
	q := plot.New()
	for _, l := range lines {
		if err := addLine(q, l, lineColors[0], "x"); err != nil {
			t.Fatal(err)
		}
	}
	placeLegend(q, lines, long, false)
	if !q.Legend.Top || q.Legend.Left || !(q.Y.Max > 0.69) {
		t.Errorf("legend top %v left %v, y up to %v: want a strip above the curves at the top right", q.Legend.Top, q.Legend.Left, q.Y.Max)
	}
	peak := 0.0
	for _, l := range lines {
		for _, pt := range l {
			peak = math.Max(peak, pt.Y)
		}
	}
	_, h := legendBox(q, long)
	if bottom := q.Y.Max - h*(q.Y.Max-q.Y.Min); !(bottom >= peak-1e-12) {
		t.Errorf("the legend's box starts at %v, below the top curve's peak %v", bottom, peak)
	}
}
