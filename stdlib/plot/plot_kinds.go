package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/hmc"
)

// maxPanels bounds a posterior picture: more rows would be unreadable.
const maxPanels = 8

// posteriorPanels is a row per scalar column (trace of every chain, then
// the pooled marginal density), for the parameters named in params (all
// when empty), up to maxPanels rows.
func posteriorPanels(post *infer.Posterior, params []string) ([][]*plot.Plot, error) {
	cols, err := posteriorColumns(post, params)
	if err != nil {
		return nil, err
	}
	var rows [][]*plot.Plot
	for _, k := range cols {
		name := post.Names[k]
		trace := plot.New()
		trace.Title.Text = name
		trace.X.Label.Text = "draw"
		var pooled []float64
		for c, ch := range post.Values {
			pts := make(plotter.XYs, len(ch))
			for i, d := range ch {
				pts[i] = plotter.XY{X: float64(i + 1), Y: d[k]}
				pooled = append(pooled, d[k])
			}
			if err := addLineWidth(trace, pts, lineColors[c%len(lineColors)], "", 0.7); err != nil {
				return nil, err
			}
		}
		if err := markDivergent(trace, post, k); err != nil {
			return nil, err
		}
		dens := plot.New()
		dens.Title.Text = name + ": marginal density"
		dens.X.Label.Text = name
		xs, ys := kde(pooled, 200)
		if xs != nil {
			pts := make(plotter.XYs, len(xs))
			for i := range xs {
				pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
			}
			if err := addLineWidth(dens, pts, lineColors[0], "", 1); err != nil {
				return nil, err
			}
		}
		rows = append(rows, []*plot.Plot{trace, dens})
	}
	return rows, nil
}

// posteriorColumns picks the columns to draw.
func posteriorColumns(post *infer.Posterior, params []string) ([]int, error) {
	var cols []int
	if len(params) == 0 {
		for k := range post.Names {
			cols = append(cols, k)
		}
	} else {
		for _, p := range params {
			found := false
			for k, n := range post.Names {
				if n == p || len(n) > len(p) && n[:len(p)] == p && n[len(p)] == '.' {
					cols = append(cols, k)
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("the posterior has no parameter %q; it has %v", p, post.AttrNames())
			}
		}
	}
	return cols[:min(len(cols), maxPanels)], nil
}

// markDivergent draws the divergent transitions as red ticks along the
// bottom of a trace.
func markDivergent(p *plot.Plot, post *infer.Posterior, k int) error {
	var pts plotter.XYs
	lo := math.Inf(1)
	for _, ch := range post.Values {
		for _, d := range ch {
			lo = math.Min(lo, d[k])
		}
	}
	for c, ch := range post.Result.Chains {
		for i, div := range ch.Divergent {
			if div {
				pts = append(pts, plotter.XY{X: float64(i + 1), Y: post.Values[c][i][k]})
			}
		}
	}
	if len(pts) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color = color.RGBA{R: 213, G: 94, B: 0, A: 255}
	s.GlyphStyle.Shape = draw.CrossGlyph{}
	s.GlyphStyle.Radius = vg.Points(2.5)
	p.Add(s)
	p.Title.Text += fmt.Sprintf(" (× marks the %d divergent transitions)", len(pts))
	return nil
}

// kde is a Gaussian kernel density estimate of xs on n points, with
// Silverman's bandwidth; nil for fewer than two distinct values. As in
// ArviZ, the grid spans only the draws' range and the kernel mass past
// either end is reflected back, so the density of a bounded parameter
// (a scale, a probability) is neither drawn past its bound nor bent
// down towards it.
func kde(xs []float64, n int) ([]float64, []float64) {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			v = append(v, x)
		}
	}
	if len(v) < 2 {
		return nil, nil
	}
	sort.Float64s(v)
	sd := stat.StdDev(v, nil)
	iqr := stat.Quantile(0.75, stat.Empirical, v, nil) - stat.Quantile(0.25, stat.Empirical, v, nil)
	h := 0.9 * math.Min(sd, iqr/1.34) * math.Pow(float64(len(v)), -0.2)
	if !(h > 0) {
		return nil, nil
	}
	lo, hi := v[0], v[len(v)-1]
	xg := make([]float64, n)
	yg := make([]float64, n)
	norm := 1 / (float64(len(v)) * h * math.Sqrt(2*math.Pi))
	for i := range xg {
		x := lo + (hi-lo)*float64(i)/float64(n-1)
		xg[i] = x
		// Only points within 6h contribute visibly; v is sorted.
		a := sort.SearchFloat64s(v, x-6*h)
		s := 0.0
		for _, y := range v[a:] {
			if y > x+6*h {
				break
			}
			z := (x - y) / h
			s += math.Exp(-0.5 * z * z)
		}
		// The reflections of the draws near each end, at 2lo-y and 2hi-y.
		for _, y := range v {
			if y > lo+6*h {
				break
			}
			z := (x - (2*lo - y)) / h
			s += math.Exp(-0.5 * z * z)
		}
		for j := len(v) - 1; j >= 0 && v[j] >= hi-6*h; j-- {
			z := (x - (2*hi - v[j])) / h
			s += math.Exp(-0.5 * z * z)
		}
		yg[i] = s * norm
	}
	return xg, yg
}

// summaryFigure is the figure of a summary's intervals, sized to its
// labels: the plot area keeps the default 6-inch figure's width beside the
// widest label (a long name or sigma_alpha[10] widens the picture instead
// of squeezing the intervals), margins keep the labels off the left edge
// and the intervals off the right one, and each quantity gets a row of at
// least a quarter inch.
func summaryFigure(s *hmc.Summary) (figure, error) {
	p, err := summaryIntervals(s)
	if err != nil {
		return figure{}, err
	}
	var label vg.Length
	for _, q := range s.Params {
		label = max(label, p.Y.Tick.Label.Width(q.Name))
	}
	const base = 6 * vg.Inch
	// The default figure leaves the plot area beside a label of an inch.
	w := base + max(0, label-vg.Inch)
	h := max(4*vg.Inch, vg.Length(len(s.Params))*vg.Inch/4+vg.Inch)
	// The margins come out of the default width: a summary with short
	// names keeps the default 6-inch picture.
	return figure{single: p, w: w, h: h, pad: 3 * vg.Millimeter}, nil
}

// summaryIntervals draws, per quantity, the 5%–95% interval and the median.
func summaryIntervals(s *hmc.Summary) (*plot.Plot, error) {
	p := plot.New()
	p.Add(plotter.NewGrid())
	p.Title.Text = "posterior median and 90% interval"
	n := len(s.Params)
	names := make([]string, n)
	for i, q := range s.Params {
		y := float64(n - 1 - i) // the first quantity on top
		names[n-1-i] = q.Name
		l, err := plotter.NewLine(plotter.XYs{{X: q.Q5, Y: y}, {X: q.Q95, Y: y}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = lineColors[0], vg.Points(2)
		p.Add(l)
		m, err := plotter.NewScatter(plotter.XYs{{X: q.Q50, Y: y}})
		if err != nil {
			return nil, err
		}
		m.GlyphStyle.Color, m.GlyphStyle.Radius, m.GlyphStyle.Shape = color.Black, vg.Points(3), draw.CircleGlyph{}
		p.Add(m)
	}
	p.NominalY(names...)
	p.X.Label.Text = "value"
	return p, nil
}

// distributionPlot draws a distribution's density (its mass as stems for
// a discrete family) over its central range.
func distributionPlot(d *dists.DistVal) (*plot.Plot, error) {
	pars, ok := d.Scalar()
	if !ok {
		return nil, fmt.Errorf("cannot plot %s: its parameters are vectors", d)
	}
	p := plot.New()
	p.Add(plotter.NewGrid())
	p.Title.Text = d.String()
	p.X.Label.Text = "x"
	f := d.Family
	mean, sd := f.Mean(pars), f.StdDev(pars)
	lo, hi := f.Support(pars)
	a, b := mean-4*sd, mean+4*sd
	if math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0) {
		// No moments (Cauchy): a range from the location and scale.
		a, b = pars[0]-10*pars[len(pars)-1], pars[0]+10*pars[len(pars)-1]
	}
	a, b = math.Max(a, lo), math.Min(b, hi)
	if f.Discrete() {
		p.Y.Label.Text = "probability"
		for k := math.Max(0, math.Floor(a)); k <= math.Ceil(b); k++ {
			l, err := plotter.NewLine(plotter.XYs{{X: k, Y: 0}, {X: k, Y: math.Exp(f.LogProb(k, pars))}})
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = lineColors[0], vg.Points(3)
			p.Add(l)
		}
		return p, nil
	}
	p.Y.Label.Text = "density"
	const n = 400
	pts := make(plotter.XYs, 0, n)
	for i := 0; i < n; i++ {
		x := a + (b-a)*(float64(i)+0.5)/n
		pts = append(pts, plotter.XY{X: x, Y: math.Exp(f.LogProb(x, pars))})
	}
	return p, addLine(p, pts, lineColors[0], "")
}

// plotMatrix draws a matrix: one line per row with labels:, else a
// two-column matrix as points, coloured by color: (one label per row).
func plotMatrix(a *eval.Args, p *plot.Plot, v *eval.Mat) (xlabel, ylabel string, err error) {
	r, c := v.Dims()
	var labels eval.Names
	if err := a.Unpack("labels?", &labels); err != nil {
		return "", "", err
	}
	if labels != nil {
		if len(labels) != r {
			return "", "", fmt.Errorf("labels has %d names but the matrix has %d rows (one series per row)", len(labels), r)
		}
		var drawn []plotter.XYs
		for i := 0; i < r; i++ {
			pts := indexXY(v.M.RawRowView(i))
			drawn = append(drawn, joined(pts, false))
			if err := addLine(p, pts, lineColors[i%len(lineColors)], labels[i]); err != nil {
				return "", "", err
			}
		}
		placeLegend(p, drawn, labels, false)
		return "index", "value", nil
	}
	if c != 2 {
		return "", "", fmt.Errorf("a matrix to plot needs two columns (x, y), or labels: naming its rows as series; got %d×%d", r, c)
	}
	group, keys, err := colorGroups(a, r)
	if err != nil {
		return "", "", err
	}
	var drawn []plotter.XYs
	for gi, key := range keys {
		var pts plotter.XYs
		for i := 0; i < r; i++ {
			if group[i] == gi {
				pts = append(pts, plotter.XY{X: v.M.At(i, 0), Y: v.M.At(i, 1)})
			}
		}
		drawn = append(drawn, pts)
		s, err := plotter.NewScatter(finite(pts))
		if err != nil {
			return "", "", err
		}
		s.GlyphStyle.Radius = vg.Points(1.8)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Color = lineColors[gi%len(lineColors)]
		p.Add(s)
		if len(keys) > 1 {
			p.Legend.Add(key, s)
		}
	}
	if len(keys) > 1 {
		placeLegend(p, drawn, keys, false)
	}
	return "x1", "x2", nil
}

// colorGroups reads plot's color: for a two-column matrix of r rows: a
// label per row, numbers (groups in increasing order) or strings (groups
// in order of first appearance, as ifelse(g == 1, "treated", "control")
// gives). It returns each row's group and the groups' legend names.
func colorGroups(a *eval.Args, r int) (group []int, names []string, err error) {
	group = make([]int, r)
	if !a.Given("color") {
		return group, []string{""}, nil
	}
	v := a.Value("color")
	bad := fmt.Errorf("color must give a label per row (%d), numbers or strings, got %s", r, eval.Describe(v))
	if l, ok := v.(*eval.List); ok {
		if len(l.Elems) != r {
			return nil, nil, bad
		}
		index := map[string]int{}
		for i, e := range l.Elems {
			s, ok := e.(eval.Str)
			if !ok {
				return nil, nil, bad
			}
			g, seen := index[string(s)]
			if !seen {
				g = len(names)
				index[string(s)] = g
				names = append(names, string(s))
			}
			group[i] = g
		}
		return group, names, nil
	}
	g, ok := eval.ToFloats(v)
	if !ok || len(g) != r {
		return nil, nil, bad
	}
	keys := slices.Clone(g)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	for i, x := range g {
		group[i], _ = slices.BinarySearch(keys, x)
	}
	for _, k := range keys {
		names = append(names, eval.FormatNumber(k))
	}
	return group, names, nil
}
