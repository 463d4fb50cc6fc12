package plot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// legendCorner picks the corner of the plotting area for the legend of a
// record's lines: the one whose box (about a third of the width, and the
// height the legend needs for series lines) holds the fewest of the
// lines' points, so the legend covers as little of them as possible.
// Ties keep gonum's default, bottom right, so plots whose lines leave it
// free look as before. logX measures x on a log scale, as the axis does.
// covered is how many points the chosen box holds, and h its height as a
// fraction of the y range.
func legendCorner(lines []plotter.XYs, series int, logX bool) (top, left bool, covered int, h float64) {
	tx := func(x float64) float64 {
		if logX {
			return math.Log(x)
		}
		return x
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, q := range l {
			x := tx(q.X)
			if isBad(x) || isBad(q.Y) {
				continue
			}
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, q.Y), math.Max(yhi, q.Y)
		}
	}
	const w = 0.35
	h = math.Min(0.6, 0.07*float64(series)+0.05)
	if !(xhi > xlo) || !(yhi > ylo) {
		return false, false, 0, h
	}
	// Corners in order of preference: bottom right, top right, top left,
	// bottom left.
	corners := []struct{ top, left bool }{{false, false}, {true, false}, {true, true}, {false, true}}
	count := make([]int, len(corners))
	for _, l := range lines {
		for _, q := range l {
			x := tx(q.X)
			if isBad(x) || isBad(q.Y) {
				continue
			}
			u, v := (x-xlo)/(xhi-xlo), (q.Y-ylo)/(yhi-ylo)
			for i, c := range corners {
				inX := u >= 1-w
				if c.left {
					inX = u <= w
				}
				inY := v <= h
				if c.top {
					inY = v >= 1-h
				}
				if inX && inY {
					count[i]++
				}
			}
		}
	}
	best := 0
	for i := range corners {
		if count[i] < count[best] {
			best = i
		}
	}
	return corners[best].top, corners[best].left, count[best], h
}

// placeLegend puts p's legend in the corner its lines leave freest
// (legendCorner); when every corner holds points (a scatter of clusters
// filling the plot), it raises the top of the y axis by the legend's
// height and puts the legend in that new empty strip at the top right.
func placeLegend(p *plot.Plot, lines []plotter.XYs, series int, logX bool) {
	top, left, covered, h := legendCorner(lines, series, logX)
	if covered == 0 {
		p.Legend.Top, p.Legend.Left = top, left
		return
	}
	if lo, hi := p.Y.Min, p.Y.Max; hi > lo && !isBad(hi) && !isBad(lo) {
		p.Y.Max = hi + (hi-lo)*h/(1-h)
	}
	p.Legend.Top, p.Legend.Left = true, false
}
