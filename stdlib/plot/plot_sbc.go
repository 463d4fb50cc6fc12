package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/ecdf"
)

// The SBC plot: for each parameter the ECDF of its ranks minus the uniform
// CDF, as a step line, inside the simultaneous 1−α band (Säilynoja,
// Bürkner and Vehtari 2022, their ECDF-difference plot, as the SBC R
// package's plot_ecdf_diff draws it). A result is known by the typed value
// its record keeps (infer.SBC), not by its field names.

var (
	sbcBand = color.NRGBA{R: 0xc6, G: 0xdb, B: 0xef, A: 0xff} // light blue: the band
	sbcLine = color.NRGBA{R: 0x08, G: 0x30, B: 0x6b, A: 0xff} // dark blue: the ECDF
)

// sbcOf is the SBC result a record from sbc keeps.
func sbcOf(v eval.Value) (*infer.SBC, bool) {
	r, ok := v.(*eval.Record)
	if !ok {
		return nil, false
	}
	s, ok := r.Of().(*infer.SBC)
	return s, ok
}

// sbcFigure draws one panel per parameter scalar, in two columns when
// there are more than four.
func sbcFigure(r *infer.SBC) (figure, error) {
	if len(r.Names) == 0 {
		return figure{}, fmt.Errorf("the SBC result has no parameters to draw")
	}
	cols := 1
	if len(r.Names) > 4 {
		cols = 2
	}
	rows := (len(r.Names) + cols - 1) / cols
	panels := make([][]*plot.Plot, rows)
	for i := range panels {
		panels[i] = make([]*plot.Plot, cols)
	}
	for j := range r.Names {
		p, err := sbcPanel(r, j)
		if err != nil {
			return figure{}, err
		}
		panels[j/cols][j%cols] = p
	}
	if len(r.Names) == 1 {
		return figure{single: panels[0][0], w: 6 * vg.Inch, h: 4 * vg.Inch, pad: vg.Millimeter * 2}, nil
	}
	return figure{panels: panels, w: vg.Length(cols) * 5 * vg.Inch, h: vg.Length(rows) * 2.8 * vg.Inch}, nil
}

// sbcPanel draws scalar j's ranks.
func sbcPanel(r *infer.SBC, j int) (*plot.Plot, error) {
	return ecdfDiffPanel(r.Band, r.RankColumn(j), fmt.Sprintf("%s: p = %.3g", r.Names[j], r.PValues[j]), "fractional rank")
}

// ecdfDiffPanel draws the ECDF of ranks (on b's grid) minus the uniform
// CDF: the band as a shaded region, the ECDF difference K_i/n − z_i as a
// step line over z, a dashed line at zero. SBC's ranks and LOO-PIT's
// values share it.
func ecdfDiffPanel(b *ecdf.Band, ranks []int, title, xlabel string) (*plot.Plot, error) {
	n := float64(b.N)
	counts := b.Counts(ranks)
	// Points z_0 = 0 and z_{L+1} = 1, where the ECDF is exact, close the
	// band and the line.
	z := append(append([]float64{0}, b.Z...), 1)
	lower := make([]float64, len(z))
	upper := make([]float64, len(z))
	diff := make(plotter.XYs, 0, 2*len(z))
	for i := 1; i <= b.L; i++ {
		lower[i] = float64(b.Lower[i-1])/n - z[i]
		upper[i] = float64(b.Upper[i-1])/n - z[i]
	}
	prev := 0.0
	for i, zi := range z {
		d := 0.0
		if i >= 1 && i <= b.L {
			d = float64(counts[i-1])/n - zi
		}
		// A step: the ECDF holds its value until the next point.
		if i > 0 {
			diff = append(diff, plotter.XY{X: zi, Y: prev + z[i-1] - zi})
		}
		diff = append(diff, plotter.XY{X: zi, Y: d})
		prev = d
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "ECDF − uniform"
	p.X.Min, p.X.Max = 0, 1
	if err := addBand(p, z, lower, upper, sbcBand, fmt.Sprintf("%g%% simultaneous band", 100*(1-b.Alpha))); err != nil {
		return nil, err
	}
	zero, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
	if err != nil {
		return nil, err
	}
	zero.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	zero.Color = color.Gray{Y: 0x80}
	p.Add(zero)
	if err := addLineWidth(p, diff, sbcLine, "ECDF difference", 1.2); err != nil {
		return nil, err
	}
	// The band fills the panel's width, so no corner is free: the legend
	// goes in a strip above it, the y axis raised by 40% of its range
	// (two legend rows take about a fifth of a 2.8-inch panel's height).
	ylo, yhi := 0.0, 0.0
	for i := range z {
		ylo, yhi = math.Min(ylo, lower[i]), math.Max(yhi, upper[i])
	}
	for _, q := range diff {
		ylo, yhi = math.Min(ylo, q.Y), math.Max(yhi, q.Y)
	}
	p.Y.Min, p.Y.Max = ylo, yhi+0.4*(yhi-ylo)
	p.Legend.Top = true
	return p, nil
}
