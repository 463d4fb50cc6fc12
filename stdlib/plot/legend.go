package plot

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// curves are the lines of a plot and the names its legend shows.
type curves struct {
	pts   []plotter.XYs
	names []string
}

// placeLegend puts a single plot's legend in the corner of its data area
// that covers the fewest points of f.curves: top right, top left, bottom
// right, bottom left, the first of equals. gonum's default, bottom right,
// sits on a density's flat tail. The plot is laid out on a canvas of the
// figure's size that draws nothing, so the data area and the legend's box
// are the ones the picture will have; each curve is sampled at 16 points
// per segment, so a steep line crossing a corner counts.
func placeLegend(f figure) {
	p := f.single
	c := draw.Canvas{Canvas: new(recorder.Canvas), Rectangle: vg.Rectangle{Max: vg.Point{X: f.w, Y: f.h}}}
	da := p.DataCanvas(draw.Crop(c, f.pad, -f.pad, 0, 0))
	tx, ty := p.Transforms(&da)
	w, h := legendSize(&p.Legend, f.curves.names)
	corners := []struct{ top, left bool }{{true, false}, {true, true}, {false, false}, {false, true}}
	best, fewest := 0, math.MaxInt
	for i, k := range corners {
		r := vg.Rectangle{Min: da.Min, Max: vg.Point{X: da.Min.X + w, Y: da.Min.Y + h}}
		if !k.left {
			r.Min.X, r.Max.X = da.Max.X-w, da.Max.X
		}
		if k.top {
			r.Min.Y, r.Max.Y = da.Max.Y-h, da.Max.Y
		}
		if n := covered(f.curves.pts, tx, ty, r); n < fewest {
			best, fewest = i, n
		}
	}
	p.Legend.Top, p.Legend.Left = corners[best].top, corners[best].left
	// Off the axes and the frame by a little (gonum adds YOffs to the
	// baseline: negative moves a legend at the top down).
	p.Legend.XOffs, p.Legend.YOffs = 2*vg.Millimeter, -2*vg.Millimeter
	if !p.Legend.Top {
		p.Legend.YOffs = 2 * vg.Millimeter
	}
	if !p.Legend.Left {
		p.Legend.XOffs = -2 * vg.Millimeter
	}
}

// legendSize is the width and height gonum draws p's legend at, and a
// the 2 mm placeLegend leaves around it.
func legendSize(l *plot.Legend, names []string) (vg.Length, vg.Length) {
	var w, h vg.Length
	for i, name := range names {
		w = max(w, l.ThumbnailWidth+l.TextStyle.Width(" "+name))
		h += l.TextStyle.Height(name)
		if i > 0 {
			h += l.Padding
		}
	}
	return w + 4*vg.Millimeter, h + 4*vg.Millimeter
}

// covered counts the points of pts (and of 15 more per segment) inside
// r, on the canvas tx and ty map data to.
func covered(lines []plotter.XYs, tx, ty func(float64) vg.Length, r vg.Rectangle) int {
	n := 0
	in := func(x, y float64) {
		cx, cy := tx(x), ty(y)
		if cx >= r.Min.X && cx <= r.Max.X && cy >= r.Min.Y && cy <= r.Max.Y {
			n++
		}
	}
	for _, pts := range lines {
		for i, q := range pts {
			in(q.X, q.Y)
			if i == 0 {
				continue
			}
			o := pts[i-1]
			for s := 1; s < 16; s++ {
				t := float64(s) / 16
				in(o.X+t*(q.X-o.X), o.Y+t*(q.Y-o.Y))
			}
		}
	}
	return n
}
