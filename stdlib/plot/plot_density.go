package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kml-lang/kml/lang/eval"
)

// greys is a palette from white (0) to black (the largest value): a
// density drawn as grey level, as the kernel Student-t paper's Figure 2 is.
type greys []color.Color

func (g greys) Colors() []color.Color { return g }

func greyPalette(n int) greys {
	out := make(greys, n)
	for i := range out {
		y := uint8(255 - math.Round(230*float64(i)/float64(n-1)))
		out[i] = color.Gray{Y: y}
	}
	return out
}

// densityFields finds a density picture in a record: a vector field named
// density, a two-column matrix with as many rows (its grid points) and,
// optionally, another two-column matrix (points drawn on top).
func densityFields(r *eval.Record, vecs map[string][]float64) (grid *mat.Dense, z []float64, points *mat.Dense, ok bool) {
	z = vecs["density"]
	if z == nil {
		return nil, nil, nil, false
	}
	for _, k := range r.AttrNames() {
		v, _ := r.Attr(k)
		m, isMat := v.(*eval.Mat)
		if !isMat {
			continue
		}
		rows, cols := m.Dims()
		if cols != 2 {
			continue
		}
		if rows == len(z) && grid == nil {
			grid = m.M
		} else if points == nil {
			points = m.M
		}
	}
	return grid, z, points, grid != nil
}

// densityMap draws z ≥ 0 on the grid as grey levels (white at 0, black at
// the largest value) with the points as blue dots on top.
func densityMap(p *plot.Plot, grid *mat.Dense, z []float64, points *mat.Dense) (xlabel, ylabel string, err error) {
	top := 0.0
	for _, v := range z {
		if isBad(v) || v < 0 {
			return "", "", fmt.Errorf("density must be finite and non-negative, got %v", v)
		}
		top = math.Max(top, v)
	}
	g, err := gridOf(grid, z, "the grid")
	if err != nil {
		return "", "", err
	}
	if top == 0 {
		top = 1
	}
	h := plotter.NewHeatMap(g, greyPalette(200))
	h.Min, h.Max = 0, top
	p.Add(h)
	if points != nil {
		n, _ := points.Dims()
		xy := make(plotter.XYs, 0, n)
		for i := 0; i < n; i++ {
			if !isBad(points.At(i, 0)) && !isBad(points.At(i, 1)) {
				xy = append(xy, plotter.XY{X: points.At(i, 0), Y: points.At(i, 1)})
			}
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return "", "", err
		}
		s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = lineColors[0], vg.Points(2), draw.CircleGlyph{}
		p.Add(s)
	}
	return "x1 (grey level: density, white 0 to black its maximum)", "x2", nil
}
