package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kml-lang/kml/lang/eval"
)

// A band plot's x values come from the field named x (or grid, as
// embedding and witness return), else from its first other vector field.
var bandXFields = []string{"x", "grid"}

// bandX picks a band record's x field among vecs (names in record order),
// skipping the fields in skip.
func bandX(vecs map[string][]float64, names []string, skip func(string) bool) ([]float64, string) {
	for _, k := range bandXFields {
		if x, ok := vecs[k]; ok {
			return x, k
		}
	}
	for _, k := range names {
		if !skip(k) {
			return vecs[k], k
		}
	}
	return nil, ""
}

// addBand shades the region between lower and upper over x.
func addBand(p *plot.Plot, x, lower, upper []float64, c color.NRGBA, legend string) error {
	band := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		band = append(band, plotter.XY{X: x[i], Y: lower[i]})
	}
	for i := len(x) - 1; i >= 0; i-- {
		band = append(band, plotter.XY{X: x[i], Y: upper[i]})
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	p.Add(poly)
	if legend != "" {
		p.Legend.Add(legend, poly)
	}
	return nil
}

// addZeroLine draws a dashed line at y = 0 when 0 lies within the band's
// range, so the line marks where the band crosses zero but never stretches
// the y axis to reach it.
func addZeroLine(p *plot.Plot, x, lower, upper []float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range lower {
		lo, hi = math.Min(lo, lower[i]), math.Max(hi, upper[i])
	}
	if !(lo <= 0 && hi >= 0) {
		return
	}
	zero, _ := plotter.NewLine(plotter.XYs{{X: x[0], Y: 0}, {X: x[len(x)-1], Y: 0}})
	zero.Color = color.Gray{Y: 100}
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero)
}

// addPoints overlays data points (plot's data: argument) as dots.
func addPoints(p *plot.Plot, pts plotter.XYs) error {
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = color.Black, vg.Points(2), draw.CircleGlyph{}
	p.Add(s)
	p.Legend.Add("data", s)
	return nil
}

// isPredict reports whether r is what predict returns: f_mean and f_var.
func isPredict(vecs map[string][]float64) bool {
	return vecs["f_mean"] != nil && vecs["f_var"] != nil
}

// predictBand draws predict's record: the mean of f as a line, the band
// of f (f_lower to f_upper when predict gave them, after sample, else the
// mean ± z sd of f_var, z the normal quantile of the record's level or of
// 95%) and, lighter and wider, the band of a new observation y (y_lower,
// y_upper or y_var; not for class probabilities), over the x field (one
// column of Xnew, as predict returns it for one-column inputs).
func predictBand(p *plot.Plot, r *eval.Record, vecs map[string][]float64, names []string, data plotter.XYs) (xlabel, ylabel string, err error) {
	x, xname := bandX(vecs, names, func(k string) bool { return len(k) > 2 && (k[:2] == "f_" || k[:2] == "y_") || k == "prob" })
	if x == nil {
		return "", "", fmt.Errorf("a predict record to plot needs the new inputs as a field x (predict adds it when xnew has one column; otherwise write {x: XCOLUMN, f_mean: p.f_mean, f_var: p.f_var})")
	}
	fm, fv := vecs["f_mean"], vecs["f_var"]
	if len(x) != len(fm) || len(fv) != len(fm) {
		return "", "", fmt.Errorf("the fields %s, f_mean and f_var must have equal lengths", xname)
	}
	level := 0.95
	if lv, ok := r.Attr("level"); ok {
		if l, ok := eval.ToFloat(lv); ok && l > 0 && l < 1 {
			level = l
		}
	}
	z := math.Sqrt2 * math.Erfinv(level)
	interval := func(name string, v []float64) (lo, hi []float64) {
		if lo, hi = vecs[name+"_lower"], vecs[name+"_upper"]; len(lo) == len(fm) && len(hi) == len(fm) {
			return lo, hi
		}
		mean := vecs[name+"_mean"]
		lo, hi = make([]float64, len(fm)), make([]float64, len(fm))
		for i := range fm {
			s := math.Sqrt(v[i])
			lo[i], hi[i] = mean[i]-z*s, mean[i]+z*s
		}
		return lo, hi
	}
	// The legend goes in headroom above everything drawn, top right, so it
	// covers neither the bands nor the data.
	bottom, top := math.Inf(1), math.Inf(-1)
	span := func(lo, hi []float64) {
		for i := range lo {
			if !isBad(lo[i]) && !isBad(hi[i]) {
				bottom, top = math.Min(bottom, lo[i]), math.Max(top, hi[i])
			}
		}
	}
	for _, q := range data {
		bottom, top = math.Min(bottom, q.Y), math.Max(top, q.Y)
	}
	_, isProb := vecs["prob"]
	if yv, ym := vecs["y_var"], vecs["y_mean"]; !isProb && len(yv) == len(fm) && len(ym) == len(fm) {
		finite := true
		for _, v := range yv {
			finite = finite && !math.IsInf(v, 0)
		}
		if lo, hi := interval("y", yv); finite || vecs["y_lower"] != nil {
			span(lo, hi)
			if err := addBand(p, x, lo, hi, color.NRGBA{R: 0, G: 114, B: 178, A: 35}, fmt.Sprintf("%g%% band of a new y", 100*level)); err != nil {
				return "", "", err
			}
		}
	}
	lo, hi := interval("f", fv)
	span(lo, hi)
	if err := addBand(p, x, lo, hi, color.NRGBA{R: 0, G: 114, B: 178, A: 90}, fmt.Sprintf("%g%% band of f", 100*level)); err != nil {
		return "", "", err
	}
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: fm[i]}
	}
	if err := addLine(p, pts, lineColors[0], "mean of f"); err != nil {
		return "", "", err
	}
	if err := addPoints(p, data); err != nil {
		return "", "", err
	}
	if bottom < top {
		p.Y.Min, p.Y.Max = bottom, top+0.3*(top-bottom)
		p.Legend.Top = true
	}
	return xname, "predictive", nil
}

// dataPoints reads plot's data: argument, the observations to overlay on a
// band: a record {x, y} of two equal-length vectors (an n×1 matrix counts
// as a vector), or a two-column matrix of (x, y) rows. Points with a NaN
// or infinite coordinate are left out.
func dataPoints(a *eval.Args) (plotter.XYs, error) {
	v := a.Value("data")
	if v == nil {
		return nil, nil
	}
	var xs, ys []float64
	switch d := v.(type) {
	case *eval.Record:
		xv, okx := d.Attr("x")
		yv, oky := d.Attr("y")
		var ok1, ok2 bool
		if okx && oky {
			xs, ok1 = eval.ToFloats(xv)
			ys, ok2 = eval.ToFloats(yv)
		}
		if !ok1 || !ok2 || len(xs) != len(ys) {
			return nil, a.Errorf("data", "data must be a record {x, y} of two vectors of equal length, or a two-column matrix")
		}
	case *eval.Mat:
		n, c := d.M.Dims()
		if c != 2 {
			return nil, a.Errorf("data", "data as a matrix must have two columns (x, y), got %d", c)
		}
		for i := range n {
			xs, ys = append(xs, d.M.At(i, 0)), append(ys, d.M.At(i, 1))
		}
	default:
		return nil, a.Errorf("data", "data must be a record {x, y} or a two-column matrix, got %s", eval.Describe(v))
	}
	var pts plotter.XYs
	for i := range xs {
		if !isBad(xs[i]) && !isBad(ys[i]) {
			pts = append(pts, plotter.XY{X: xs[i], Y: ys[i]})
		}
	}
	return pts, nil
}

// addBandLines draws, when labels are given, a band record's other vector
// fields (all but x, mean, lower, upper and sd) as lines over the band,
// named in a legend by labels (one per field, in record order), after the
// mean and the band: the truth beside a posterior band, plot({u, mean,
// lower, upper, truth}, labels: ["true embedding"]). Without labels the
// other fields are left out, as before.
func addBandLines(p *plot.Plot, vecs map[string][]float64, names []string, x []float64, xname string, mean, lower, upper []float64, bandName string, labels eval.Names) error {
	var extra []string
	for _, k := range names {
		switch k {
		case xname, "mean", "lower", "upper", "sd":
			continue
		}
		extra = append(extra, k)
	}
	if labels == nil {
		return nil
	}
	if len(labels) != len(extra) {
		return fmt.Errorf("labels has %d names but the band record has %d lines besides mean, lower and upper (%s)", len(labels), len(extra), strings.Join(extra, ", "))
	}
	meanPts := make(plotter.XYs, len(x))
	for i := range x {
		meanPts[i] = plotter.XY{X: x[i], Y: mean[i]}
	}
	legend := []string{"mean", bandName}
	drawn := []plotter.XYs{joined(meanPts, false), nil}
	for i := range x {
		drawn[1] = append(drawn[1], plotter.XY{X: x[i], Y: lower[i]}, plotter.XY{X: x[i], Y: upper[i]})
	}
	for k, name := range extra {
		y := vecs[name]
		if len(y) != len(x) {
			return fmt.Errorf("field %s has %d values but %s has %d", name, len(y), xname, len(x))
		}
		pts := make(plotter.XYs, len(x))
		for i := range x {
			pts[i] = plotter.XY{X: x[i], Y: y[i]}
		}
		name = labels[k]
		if err := addLine(p, pts, lineColors[(k+1)%len(lineColors)], ""); err != nil {
			return err
		}
		legend = append(legend, name)
		drawn = append(drawn, joined(pts, false))
	}
	// The legend in order: the mean, the band, then the other lines.
	thumb := func(c color.Color) *plotter.Line {
		return &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(1.5)}}
	}
	p.Legend.Add(legend[0], thumb(lineColors[0]))
	p.Legend.Add(legend[1], &plotter.Polygon{Color: color.NRGBA{R: 0, G: 114, B: 178, A: 70}})
	for k, name := range legend[2:] {
		p.Legend.Add(name, thumb(lineColors[(k+1)%len(lineColors)]))
	}
	placeLegend(p, drawn, legend, false)
	return nil
}
