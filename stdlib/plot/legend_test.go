package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

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
		top, left, _, _ := legendCorner(c.lines, len(c.lines), c.logX)
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
	placeLegend(p, []plotter.XYs{corners}, 2, false)
	_, _, _, h := legendCorner([]plotter.XYs{corners}, 2, false)
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
	placeLegend(q, []plotter.XYs{free}, 2, false)
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
	if err := addErrorBars(p, indexXY(y), se, lineColors[0]); err != nil {
		t.Errorf("NaN value or SE: %v", err)
	}
	// A flat line at 0 with an error bar of ±1 at one end: the bar's ends
	// fill both corners on its side, so the legend goes to the bottom right
	// when the bar is on the left, and to the top left when it is on the
	// right (where a legend placed from the line alone would cover it).
	flat := plotter.XYs{{X: 0, Y: 0}, {X: 0.5, Y: 0}, {X: 1, Y: 0}}
	leftBar := errorBarPoints(flat, []float64{1, 0, 0})
	if top, left, _, _ := legendCorner([]plotter.XYs{flat, leftBar}, 2, false); top || left {
		t.Errorf("bar on the left: top %v left %v, want the bottom right", top, left)
	}
	rightBar := errorBarPoints(flat, []float64{0, 0, 1})
	if top, left, _, _ := legendCorner([]plotter.XYs{flat, rightBar}, 2, false); !top || !left {
		t.Errorf("bar on the right: top %v left %v, want the top left", top, left)
	}
}
