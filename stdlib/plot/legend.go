package plot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// legendCorner picks the corner of the plotting area for a legend whose
// box is w wide and h high (fractions of the plotting area, legendBox): the
// corner whose box holds the fewest of the lines' points, so the legend
// covers as little of them as possible. Ties keep gonum's default, bottom
// right, so plots whose lines leave it free look as before. logX measures
// x on a log scale, as the axis does. covered is how many points the
// chosen box holds.
func legendCorner(lines []plotter.XYs, w, h float64, logX bool) (top, left bool, covered int) {
	tx := func(x float64) float64 {
		if logX {
			return math.Log(x)
		}
		return x
	}
	xlo, xhi, ylo, yhi, ok := extent(lines, logX)
	if !ok {
		return false, false, 0
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
	return corners[best].top, corners[best].left, count[best]
}

// legendAreaW and legendAreaH are the plotting area of the usual 6×4-inch
// figure, less its axes and title.
const legendAreaW, legendAreaH = 5.2 * vg.Inch, 3.1 * vg.Inch

// legendBox is the size of p's legend of the given names as fractions
// (w, h) of the plotting area of the usual 6×4-inch figure (less its axes
// and title): across, the widest name with its thumbnail and padding; down,
// a row per name. Half a row more across and a row more down keep the box
// off the lines and points.
func legendBox(p *plot.Plot, names []string) (w, h float64) {
	l := p.Legend
	var wide vg.Length
	for _, n := range names {
		wide = max(wide, l.TextStyle.Width(n))
	}
	row := l.TextStyle.Height("Mg") + l.Padding
	w = float64((wide + l.ThumbnailWidth + 2*l.Padding + row/2) / legendAreaW)
	h = float64((vg.Length(len(names)+1) * row) / legendAreaH)
	return math.Min(math.Max(w, 0.15), 0.9), math.Min(h, 0.9)
}

// placeLegend puts p's legend of the given names in the corner its lines
// leave free (legendCorner, with the legend's own size, legendBox); when
// every corner holds points (clusters filling a scatter, curves across the
// top), it raises the top of the y axis by the legend's height and puts the
// legend in that new empty strip at the top right, above every line.
func placeLegend(p *plot.Plot, lines []plotter.XYs, names []string, logX bool) {
	w, h := legendBox(p, names)
	top, left, covered := legendCorner(lines, w, h, logX)
	if covered == 0 {
		p.Legend.Top, p.Legend.Left = top, left
		return
	}
	if lo, hi := p.Y.Min, p.Y.Max; hi > lo && !isBad(hi) && !isBad(lo) {
		p.Y.Max = hi + (hi-lo)*h/(1-h)
	}
	p.Legend.Top, p.Legend.Left = true, false
}

// placeLegendWithin is placeLegend for a plot whose y axis must keep its
// range (proportions in [0, 1]): the legend goes to the corner, or the
// middle of the right or left edge, that its lines leave freest, covering
// the fewest points when none is free.
func placeLegendWithin(p *plot.Plot, lines []plotter.XYs, names []string, logX bool) {
	w, h := legendBox(p, names)
	top, left, covered := legendCorner(lines, w, h, logX)
	p.Legend.Top, p.Legend.Left = top, left
	if covered == 0 {
		return
	}
	for _, l := range []bool{false, true} {
		if n := legendMiddle(lines, w, h, l, logX); n < covered {
			covered = n
			p.Legend.Top, p.Legend.Left = false, l
			p.Legend.YOffs = vg.Length((1-h)/2) * legendAreaH
		}
	}
}

// legendMiddle counts the points in a box w wide and h high at the middle
// of the left or right edge.
func legendMiddle(lines []plotter.XYs, w, h float64, left, logX bool) int {
	xlo, xhi, ylo, yhi, ok := extent(lines, logX)
	if !ok {
		return 0
	}
	n := 0
	for _, l := range lines {
		for _, q := range l {
			x := q.X
			if logX {
				x = math.Log(x)
			}
			if isBad(x) || isBad(q.Y) {
				continue
			}
			u, v := (x-xlo)/(xhi-xlo), (q.Y-ylo)/(yhi-ylo)
			inX := u >= 1-w
			if left {
				inX = u <= w
			}
			if inX && math.Abs(v-0.5) <= h/2 {
				n++
			}
		}
	}
	return n
}

// extent is the range of the lines' finite points (x on a log scale for
// logX); ok is false when either range is empty.
func extent(lines []plotter.XYs, logX bool) (xlo, xhi, ylo, yhi float64, ok bool) {
	xlo, xhi, ylo, yhi = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, q := range l {
			x := q.X
			if logX {
				x = math.Log(x)
			}
			if isBad(x) || isBad(q.Y) {
				continue
			}
			xlo, xhi = math.Min(xlo, x), math.Max(xhi, x)
			ylo, yhi = math.Min(ylo, q.Y), math.Max(yhi, q.Y)
		}
	}
	return xlo, xhi, ylo, yhi, xhi > xlo && yhi > ylo
}

// joined is pts with points added along each segment between consecutive
// finite points, as the line is drawn (straight on a log x axis too), so
// that a legend is kept off the segments and not only off their ends: a
// power curve from (2, 0.5) to (4, 1) crosses the top left corner with no
// point in it.
func joined(pts plotter.XYs, logX bool) plotter.XYs {
	const between = 15
	out := make(plotter.XYs, 0, len(pts)*(between+1))
	for i, q := range pts {
		if i > 0 {
			a := pts[i-1]
			if !isBad(a.X) && !isBad(a.Y) && !isBad(q.X) && !isBad(q.Y) && (!logX || a.X > 0 && q.X > 0) {
				for k := 1; k <= between; k++ {
					t := float64(k) / (between + 1)
					x := a.X + t*(q.X-a.X)
					if logX {
						x = a.X * math.Pow(q.X/a.X, t)
					}
					out = append(out, plotter.XY{X: x, Y: a.Y + t*(q.Y-a.Y)})
				}
			}
		}
		out = append(out, q)
	}
	return out
}
