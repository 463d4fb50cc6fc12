package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model/dists"
)

func registerPlot(reg *eval.Registry) {
	reg.Register(`plot(v, to?, title?, xlabel?, ylabel?, labels?, color?, params?, data?, kind?, stat?)`,
		`Draws v into the file to (.svg, .png or .pdf) and returns the path written; without to, returns the figure itself, which a notebook (kml jupyter) shows inline and print describes. By v's kind: a posterior (from sample) as a panel per parameter element (up to 8; params: ["a", "w"] picks parameters) with every chain's trace, divergent transitions marked, and the marginal density, or with kind: "rank" as rank histograms of the chains (Vehtari et al. 2021); a check from ppc or prior_predictive as the densities of up to 50 replicates over the data's (one bandwidth for all, Silverman's rule for the data; for whole-number data, the data's frequencies as bars with the replicates' median and 90% interval of each), or with stat: ("mean", "sd", "median", "min", "max" or a function of a vector) as the histogram of the statistic of the replicates against its observed value; an sbc or loo_pit result as the ECDF difference of its ranks or PIT values in the simultaneous band; a summary as intervals (5%–95% and the median) per quantity; a distribution as its density (mass for counts); a record with fields mean, lower and upper (over its field x or grid, as embedding and witness return, else its first other vector field) as a mean line in a shaded band, with a dashed zero line when the band reaches 0, and with labels: its other vector fields as lines named by the labels (the truth beside a posterior band); predict's record (f_mean, f_var, over its field x) as the mean of f in the bands of f and of a new y (f_lower/f_upper and y_lower/y_upper after sample, else ± the normal quantile of level, default 95%); data: {x, y} (or a two-column matrix) overlays observations on either band as dots; or, when the grid field is a two-column matrix of points forming a full 2-D grid, as a heat map of mean (blue negative, red positive, symmetric about 0); a record of a two-column matrix of grid points and a vector of values at them as a heat map of the values; a record of equal-length vectors (as profile returns) as lines of the later fields against the first, named in the legend by labels: (one per line) if given; a vector against its index; a matrix with labels: (one per row) as one line per row with a legend; a two-column matrix as points, coloured by color: (a label per row: numbers, or strings such as ifelse(g == 1, "treated", "control") gives, named in the legend).`,
		plotBuiltin)
}

var plotFormats = map[string]bool{".svg": true, ".png": true, ".pdf": true}

// figure is what plot draws: one plot, or a grid of panels.
type figure struct {
	single *plot.Plot
	panels [][]*plot.Plot
	w, h   vg.Length
	// pad is a margin left and right of a single plot: gonum sizes the
	// axis to its tick labels' measured width with nothing to spare, so a
	// long label's first glyph touches (or crosses) the left edge, and an
	// interval reaching the axis' end touches the right one.
	pad vg.Length
}

func plotBuiltin(a *eval.Args) (eval.Value, error) {
	var to string
	if err := a.Unpack("to?", &to); err != nil {
		return nil, err
	}
	var path, ext string
	if a.Given("to") {
		ext = strings.ToLower(filepath.Ext(to))
		if !plotFormats[ext] {
			return nil, a.Errorf("to", "to must end in .svg, .png or .pdf, got %q", to)
		}
		in := a.Th.Interp()
		var err error
		if path, err = in.Sandbox().WritePath(in.BaseDir(), to); err != nil {
			return nil, a.Errorf("to", "%v", err)
		}
	}
	var err error
	var title string
	if err := a.Unpack("title?", &title); err != nil {
		return nil, err
	}
	fig := figure{w: 6 * vg.Inch, h: 4 * vg.Inch}
	check, isCheck := predictiveOf(a.Value("v"))
	if a.Given("stat") && !isCheck {
		return nil, a.Errorf("stat", "stat: is for a check from ppc or prior_predictive, not %s", eval.Describe(a.Value("v")))
	}
	var kind string
	if err := a.Unpack("kind?", &kind); err != nil {
		return nil, err
	}
	if _, isPost := a.Value("v").(*infer.Posterior); a.Given("kind") && (!isPost || kind != "trace" && kind != "rank") {
		return nil, a.Errorf("kind", `kind: is for a posterior, "trace" (the default) or "rank"; got %s for %s`, eval.Describe(a.Value("kind")), eval.Describe(a.Value("v")))
	}
	switch v := a.Value("v").(type) {
	case *infer.Posterior:
		var params eval.Names
		if err := a.Unpack("params?", &params); err != nil {
			return nil, err
		}
		panels := posteriorPanels
		if kind == "rank" {
			panels = rankPanels
		}
		if fig.panels, err = panels(v, params); err != nil {
			return nil, a.Errorf("params", "%v", err)
		}
		fig.w, fig.h = 8*vg.Inch, max(vg.Length(len(fig.panels))*1.8*vg.Inch, 2.6*vg.Inch)
		if kind == "rank" {
			fig.w = 6 * vg.Inch
		}
	case *eval.Record:
		if isCheck {
			fig, err = predictiveFigure(a, check)
		} else if r, ok := sbcOf(v); ok {
			fig, err = sbcFigure(r)
		} else if r, ok := loopitOf(v); ok {
			fig, err = loopitFigure(r)
		} else {
			fig.single, err = plotData(a, v)
		}
	case *infer.SummaryVal:
		fig, err = summaryFigure(v.S)
	case *dists.DistVal:
		fig.single, err = distributionPlot(v)
	default:
		fig.single, err = plotData(a, v)
	}
	if err != nil {
		var ae *ast.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, a.Errorf("v", "%v", err)
	}
	if p := fig.single; p != nil {
		if err := a.Unpack("xlabel?", &p.X.Label.Text, "ylabel?", &p.Y.Label.Text); err != nil {
			return nil, err
		}
		if title != "" {
			p.Title.Text = title
		}
	} else if title != "" {
		fig.panels[0][0].Title.Text = title + " — " + fig.panels[0][0].Title.Text
	}
	if path == "" {
		return &Figure{fig: fig, kind: a.Value("v").Type()}, nil
	}
	data, err := fig.render(ext[1:])
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	in := a.Th.Interp()
	if err := in.Sandbox().WriteFile(a.Context(), in.BaseDir(), to, data); err != nil {
		return nil, a.Errorf("to", "cannot write %s: %v", to, err)
	}
	return eval.Str(to), nil
}

// predictiveOf is the check a record from ppc or prior_predictive keeps.
func predictiveOf(v eval.Value) (*infer.Predictive, bool) {
	r, ok := v.(*eval.Record)
	if !ok {
		return nil, false
	}
	p, ok := r.Of().(*infer.Predictive)
	return p, ok
}

// render draws the figure in format (svg, png, pdf).
func (f figure) render(format string) ([]byte, error) {
	c, err := draw.NewFormattedCanvas(f.w, f.h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	if f.single != nil {
		f.single.Draw(draw.Crop(dc, f.pad, -f.pad, 0, 0))
	} else {
		tiles := draw.Tiles{Rows: len(f.panels), Cols: len(f.panels[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 3,
			PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
		canvases := plot.Align(f.panels, tiles, dc)
		for i, row := range f.panels {
			for j, p := range row {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// plotData draws the data kinds: a record, a vector, a matrix.
func plotData(a *eval.Args, v eval.Value) (*plot.Plot, error) {
	p := plot.New()
	p.Add(plotter.NewGrid())
	var err error
	xlabel, ylabel := "", ""
	switch v := v.(type) {
	case *eval.Record:
		if names, edges, ok := pcGraph(v); ok {
			return graphPlot(names, edges)
		}
		var data plotter.XYs
		if data, err = dataPoints(a); err != nil {
			return nil, err
		}
		var labels eval.Names
		if err := a.Unpack("labels?", &labels); err != nil {
			return nil, err
		}
		xlabel, ylabel, err = plotRecord(p, v, data, labels)
	case *eval.Vec:
		if err := checkFinite(a, v.Data); err != nil {
			return nil, err
		}
		xlabel, ylabel, err = "index", "value", addLine(p, indexXY(v.Data), color.Black, "")
	case *eval.Mat:
		if err := checkFinite(a, v.M.RawMatrix().Data); err != nil {
			return nil, err
		}
		xlabel, ylabel, err = plotMatrix(a, p, v)
	default:
		return nil, fmt.Errorf("cannot plot %s; plot takes a posterior, a summary, a distribution, a record (profile, embedding, witness), a vector or a matrix", eval.Describe(v))
	}
	if err != nil {
		return nil, err
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	return p, nil
}

// checkFinite refuses data with nothing to draw, empty or all NaN and
// infinite, and warns, at v, of the points left out, where lines break.
func checkFinite(a *eval.Args, data []float64) error {
	if len(data) == 0 {
		return a.Errorf("v", "nothing to plot: v is empty")
	}
	bad := 0
	for _, x := range data {
		if isBad(x) {
			bad++
		}
	}
	switch {
	case bad == len(data):
		return a.Errorf("v", "nothing to plot: every value of v is NaN or infinite")
	case bad > 0:
		a.Th.Interp().Warn(a.PosOf("v"), fmt.Sprintf("plot: %d of %d values are NaN or infinite; they are left out, and lines are broken there", bad, len(data)))
	}
	return nil
}

func indexXY(ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i].X, pts[i].Y = float64(i+1), y
	}
	return pts
}

func addLine(p *plot.Plot, pts plotter.XYs, c color.Color, name string) error {
	return addLineWidth(p, pts, c, name, 1.5)
}

// addLineWidth adds a line of width points (thinner in a grid of panels).
// The line is broken where a point is NaN or infinite rather than drawn
// straight across the gap; a finite point alone between two gaps is a dot.
func addLineWidth(p *plot.Plot, pts plotter.XYs, c color.Color, name string, width float64) error {
	named := false
	for _, run := range finiteRuns(pts) {
		var thing plot.Thumbnailer
		if len(run) == 1 {
			s, err := plotter.NewScatter(run)
			if err != nil {
				return err
			}
			s.GlyphStyle.Color = c
			s.GlyphStyle.Shape = draw.CircleGlyph{}
			s.GlyphStyle.Radius = vg.Points(width)
			p.Add(s)
			thing = s
		} else {
			l, err := plotter.NewLine(run)
			if err != nil {
				return err
			}
			l.Color = c
			l.Width = vg.Points(width)
			p.Add(l)
			thing = l
		}
		if name != "" && !named {
			p.Legend.Add(name, thing)
			named = true
		}
	}
	return nil
}

// finiteRuns splits pts into the runs of consecutive points a line can draw.
func finiteRuns(pts plotter.XYs) []plotter.XYs {
	var runs []plotter.XYs
	start := -1
	for i, q := range pts {
		if bad := isBad(q.X) || isBad(q.Y); bad && start >= 0 {
			runs = append(runs, pts[start:i])
			start = -1
		} else if !bad && start < 0 {
			start = i
		}
	}
	if start >= 0 {
		runs = append(runs, pts[start:])
	}
	return runs
}

// finite drops points that cannot be drawn (a profile is -Inf where the
// density is zero).
func finite(pts plotter.XYs) plotter.XYs {
	out := pts[:0:0]
	for _, q := range pts {
		if !isBad(q.X) && !isBad(q.Y) {
			out = append(out, q)
		}
	}
	return out
}

func isBad(x float64) bool { return x != x || x > 1e308 || x < -1e308 }

// lineColors is the Okabe–Ito palette, readable with every common colour
// vision deficiency (black first left out: it is the default ink).
var lineColors = []color.Color{
	color.RGBA{R: 0, G: 114, B: 178, A: 255},   // blue
	color.RGBA{R: 213, G: 94, B: 0, A: 255},    // vermillion
	color.RGBA{R: 0, G: 158, B: 115, A: 255},   // bluish green
	color.RGBA{R: 204, G: 121, B: 167, A: 255}, // reddish purple
	color.RGBA{R: 230, G: 159, B: 0, A: 255},   // orange
	color.RGBA{R: 86, G: 180, B: 233, A: 255},  // sky blue
	color.RGBA{R: 240, G: 228, B: 66, A: 255},  // yellow
}

// plotRecord draws a band record (mean, lower, upper over a grid) or a
// record of equal-length vectors.
// labels, if given, name the lines of a record of vectors in the legend,
// one per line, in place of the field names.
func plotRecord(p *plot.Plot, r *eval.Record, data plotter.XYs, labels eval.Names) (xlabel, ylabel string, err error) {
	vecs := map[string][]float64{}
	var names []string
	for _, k := range r.AttrNames() {
		v, _ := r.Attr(k)
		if xs, ok := eval.ToFloats(v); ok {
			if _, isNum := v.(eval.Num); !isNum {
				vecs[k] = xs
				names = append(names, k)
			}
		}
	}
	if grid, z, points, ok := densityFields(r, vecs); ok {
		return densityMap(p, grid, z, points)
	}
	if pts, z, xname, ok := heatFields(r, vecs, names); ok {
		xlabel, ylabel, err := heatMap(p, pts, z, xname)
		if err == nil && len(vecs["lower"]) == len(z) && len(vecs["upper"]) == len(z) {
			err = markExcludesZero(p, pts, vecs["lower"], vecs["upper"])
		}
		return xlabel, ylabel, err
	}
	if isPredict(vecs) {
		return predictBand(p, r, vecs, names, data)
	}
	mean, lower, upper := vecs["mean"], vecs["lower"], vecs["upper"]
	if mean != nil && lower != nil && upper != nil {
		x, xlabel := bandX(vecs, names, func(k string) bool { return k == "mean" || k == "lower" || k == "upper" })
		if x == nil {
			x, xlabel = make([]float64, len(mean)), "index"
			for i := range x {
				x[i] = float64(i + 1)
			}
		}
		if len(x) != len(mean) || len(lower) != len(mean) || len(upper) != len(mean) {
			return "", "", fmt.Errorf("the fields %s, mean, lower and upper must have equal lengths", xlabel)
		}
		if err := addBand(p, x, lower, upper, color.NRGBA{R: 0, G: 114, B: 178, A: 70}, ""); err != nil {
			return "", "", err
		}
		addZeroLine(p, x, lower, upper)
		pts := make(plotter.XYs, len(x))
		for i := range x {
			pts[i] = plotter.XY{X: x[i], Y: mean[i]}
		}
		if err := addLine(p, pts, lineColors[0], ""); err != nil {
			return "", "", err
		}
		ylabel = "mean"
		bandName := "band"
		if lv, ok := r.Attr("level"); ok {
			if l, ok := eval.ToFloat(lv); ok {
				ylabel = fmt.Sprintf("posterior mean and %g%% band", 100*l)
				bandName = fmt.Sprintf("%g%% band", 100*l)
			}
		}
		if err := addBandLines(p, vecs, names, x, xlabel, mean, lower, upper, bandName, labels); err != nil {
			return "", "", err
		}
		return xlabel, ylabel, addPoints(p, data)
	}
	if len(names) < 2 {
		return "", "", fmt.Errorf("a record to plot needs at least two vector fields (x, then y), or mean, lower and upper")
	}
	x := vecs[names[0]]
	// A field NAME_se gives NAME's standard errors, drawn as error bars
	// (a power table: rejection rates with their binomial SEs).
	var series []string
	for _, name := range names[1:] {
		if base, ok := strings.CutSuffix(name, "_se"); !ok || vecs[base] == nil {
			series = append(series, name)
		}
	}
	if labels != nil && len(labels) != len(series) {
		return "", "", fmt.Errorf("labels has %d names but the record has %d series to plot against %s (%s)", len(labels), len(series), names[0], strings.Join(series, ", "))
	}
	// Series with standard errors whose values all lie in [0, 1] are
	// proportions (rejection rates): their bars stop at 0 and 1 and so
	// does the y axis.
	rates := false
	for _, name := range series {
		if vecs[name+"_se"] != nil {
			rates = true
		}
	}
	for _, name := range series {
		for _, v := range vecs[name] {
			if !isBad(v) && (v < 0 || v > 1) {
				rates = false
			}
		}
	}
	lo, hi := math.Inf(-1), math.Inf(1)
	if rates {
		lo, hi = 0, 1
	}
	logX := isLogSpaced(x) && x[len(x)-1] >= 10*x[0] // a log axis needs a decade for its ticks
	var drawn []plotter.XYs
	var legendNames []string
	for k, name := range series {
		y := vecs[name]
		if len(y) != len(x) {
			return "", "", fmt.Errorf("field %s has %d values but %s has %d", name, len(y), names[0], len(x))
		}
		pts := make(plotter.XYs, len(x))
		for i := range x {
			pts[i] = plotter.XY{X: x[i], Y: y[i]}
		}
		legend := ""
		if labels != nil {
			legend = labels[k]
		} else if len(series) > 1 {
			legend = name
		}
		drawn = append(drawn, joined(pts, logX))
		legendNames = append(legendNames, legend)
		if err := addLine(p, pts, lineColors[k%len(lineColors)], legend); err != nil {
			return "", "", err
		}
		if se := vecs[name+"_se"]; se != nil {
			if err := addErrorBars(p, pts, se, lineColors[k%len(lineColors)], lo, hi); err != nil {
				return "", "", err
			}
			drawn = append(drawn, errorBarPoints(pts, se, lo, hi))
		}
		if strings.HasPrefix(name, "log") { // a profile's logp: its maximum is the point
			if err := markMax(p, pts, lineColors[k%len(lineColors)]); err != nil {
				return "", "", err
			}
		}
	}
	if len(series) == 1 {
		ylabel = series[0]
	}
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		if len(x) <= maxValueTicks {
			// A few points (dimensions 2, 4, …, 64): a labelled tick at each,
			// where the decades would label only 10.
			p.X.Tick.Marker = valueTicks(x)
		}
	}
	if rates {
		p.Y.Min, p.Y.Max = 0, 1
	}
	if len(series) > 1 {
		if rates {
			placeLegendWithin(p, drawn, legendNames, logX)
		} else {
			placeLegend(p, drawn, legendNames, logX)
		}
	}
	return names[0], ylabel, nil
}

// maxValueTicks is the most x values a log axis labels one by one.
const maxValueTicks = 12

// valueTicks labels a tick at each of the values xs.
func valueTicks(xs []float64) plot.ConstantTicks {
	var ticks plot.ConstantTicks
	for _, x := range xs {
		if !isBad(x) {
			ticks = append(ticks, plot.Tick{Value: x, Label: eval.FormatNumber(x)})
		}
	}
	return ticks
}

// errorBarPoints are the ends of the error bars y ± se, cut to [lo, hi],
// which the legend must leave uncovered as much as the lines.
func errorBarPoints(pts plotter.XYs, se []float64, lo, hi float64) plotter.XYs {
	var out plotter.XYs
	for i, q := range pts {
		if i < len(se) && !isBad(se[i]) {
			out = append(out, plotter.XY{X: q.X, Y: math.Max(lo, q.Y-se[i])}, plotter.XY{X: q.X, Y: math.Min(hi, q.Y+se[i])})
		}
	}
	return out
}

// addErrorBars draws ± se at each point where the point and its se are
// finite (the line is broken at the others), cut to [lo, hi]: a rejection
// rate's bar stops at 0 and 1.
func addErrorBars(p *plot.Plot, pts plotter.XYs, se []float64, c color.Color, lo, hi float64) error {
	if len(se) != len(pts) {
		return fmt.Errorf("the standard errors have %d values but the series %d", len(se), len(pts))
	}
	var e errPoints
	for i, q := range pts {
		if !isBad(q.X) && !isBad(q.Y) && !isBad(se[i]) {
			e = append(e, errPoint{q.X, q.Y, math.Min(se[i], q.Y-lo), math.Min(se[i], hi-q.Y)})
		}
	}
	if len(e) == 0 {
		return nil
	}
	b, err := plotter.NewYErrorBars(e)
	if err != nil {
		return err
	}
	b.Color = c
	p.Add(b)
	return nil
}

// errPoints are points with symmetric y errors, for plotter.YErrorBars.
type errPoint struct{ x, y, below, above float64 }
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].x, e[i].y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].below, e[i].above }

// markMax marks a series' largest finite value (a profile's maximum) with a
// dot.
func markMax(p *plot.Plot, pts plotter.XYs, c color.Color) error {
	best := -1
	for i, q := range pts {
		if !isBad(q.Y) && !isBad(q.X) && (best < 0 || q.Y > pts[best].Y) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	s, err := plotter.NewScatter(plotter.XYs{pts[best]})
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = c, vg.Points(3.5), draw.CircleGlyph{}
	p.Add(s)
	return nil
}

// isLogSpaced reports a positive grid whose ratios are constant (logspace),
// which reads best on a log axis.
func isLogSpaced(x []float64) bool {
	if len(x) < 3 || x[0] <= 0 {
		return false
	}
	r := x[1] / x[0]
	if r <= 1.0001 {
		return false
	}
	for i := 2; i < len(x); i++ {
		if x[i-1] <= 0 {
			return false
		}
		if q := x[i] / x[i-1]; q < r*0.999 || q > r*1.001 {
			return false
		}
	}
	return true
}

// heatFields finds a heat map in a record: a two-column matrix field (the
// points) and a vector of as many values, mean if there is one, else the
// first other such field.
func heatFields(r *eval.Record, vecs map[string][]float64, names []string) (*mat.Dense, []float64, string, bool) {
	for _, k := range r.AttrNames() {
		v, _ := r.Attr(k)
		m, ok := v.(*eval.Mat)
		if !ok {
			continue
		}
		rows, cols := m.Dims()
		if cols != 2 {
			continue
		}
		if z := vecs["mean"]; len(z) == rows {
			return m.M, z, k, true
		}
		for _, name := range names {
			if z := vecs[name]; name != k && len(z) == rows {
				return m.M, z, k, true
			}
		}
		return nil, nil, "", false
	}
	return nil, nil, "", false
}

// heatGrid is a full rectangular grid of values for plotter.HeatMap.
type heatGrid struct {
	xs, ys []float64
	z      []float64 // z[c*len(ys)+r]
}

func (g heatGrid) Dims() (c, r int)   { return len(g.xs), len(g.ys) }
func (g heatGrid) Z(c, r int) float64 { return g.z[c*len(g.ys)+r] }
func (g heatGrid) X(c int) float64    { return g.xs[c] }
func (g heatGrid) Y(r int) float64    { return g.ys[r] }

// gridOf arranges the values z at the points pts, which must be every
// combination of their distinct x and y coordinates once, as a heatGrid.
func gridOf(pts *mat.Dense, z []float64, name string) (heatGrid, error) {
	n, _ := pts.Dims()
	distinct := func(col int) ([]float64, map[float64]int) {
		var vs []float64
		seen := map[float64]bool{}
		for i := 0; i < n; i++ {
			if v := pts.At(i, col); !seen[v] {
				seen[v] = true
				vs = append(vs, v)
			}
		}
		sort.Float64s(vs)
		pos := make(map[float64]int, len(vs))
		for i, v := range vs {
			pos[v] = i
		}
		return vs, pos
	}
	xs, px := distinct(0)
	ys, py := distinct(1)
	if len(xs) < 2 || len(ys) < 2 || len(xs)*len(ys) != n {
		return heatGrid{}, fmt.Errorf("the points of %s must form a full 2-D grid (every x with every y once): %d points, %d distinct x and %d distinct y", name, n, len(xs), len(ys))
	}
	g := heatGrid{xs: xs, ys: ys, z: make([]float64, n)}
	filled := make([]bool, n)
	for i := 0; i < n; i++ {
		c := px[pts.At(i, 0)]*len(ys) + py[pts.At(i, 1)]
		if filled[c] {
			return heatGrid{}, fmt.Errorf("the point (%g, %g) of %s appears twice", pts.At(i, 0), pts.At(i, 1), name)
		}
		filled[c] = true
		if isBad(z[i]) {
			return heatGrid{}, fmt.Errorf("the value at (%g, %g) is not finite", pts.At(i, 0), pts.At(i, 1))
		}
		g.z[c] = z[i]
	}
	return g, nil
}

// heatMap draws the values z at the points pts, which must be every
// combination of their distinct x and y coordinates once, with a diverging
// palette centred at 0 so that the sign reads as the colour.
func heatMap(p *plot.Plot, pts *mat.Dense, z []float64, name string) (xlabel, ylabel string, err error) {
	g, err := gridOf(pts, z, name)
	if err != nil {
		return "", "", err
	}
	top := 0.0
	for _, v := range z {
		top = math.Max(top, math.Abs(v))
	}
	if top == 0 {
		top = 1
	}
	h := plotter.NewHeatMap(g, moreland.SmoothBlueRed().Palette(255))
	h.Min, h.Max = -top, top
	p.Add(h)
	// Contours at ±¼, ±½ and ±¾ of the largest |value|, and at 0.
	var levels []float64
	for _, f := range []float64{-0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75} {
		levels = append(levels, f*top)
	}
	c := plotter.NewContour(g, levels, nil)
	c.LineStyles = []draw.LineStyle{{Color: color.Gray{Y: 40}, Width: vg.Points(0.6)}}
	p.Add(c)
	return fmt.Sprintf("x1 (colour from %.3g to %.3g; contours at 0, ±¼, ±½, ±¾ of the largest)", -top, top), "x2", nil
}

// markExcludesZero dots the grid points where the band [lower, upper]
// excludes 0: where the sign of the difference is credible.
func markExcludesZero(p *plot.Plot, pts *mat.Dense, lower, upper []float64) error {
	var xy plotter.XYs
	for i := range lower {
		if lower[i] > 0 || upper[i] < 0 {
			xy = append(xy, plotter.XY{X: pts.At(i, 0), Y: pts.At(i, 1)})
		}
	}
	if len(xy) == 0 {
		return nil
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return err
	}
	s.GlyphStyle.Color, s.GlyphStyle.Radius, s.GlyphStyle.Shape = color.Black, vg.Points(0.8), draw.CircleGlyph{}
	p.Add(s)
	p.Legend.Add("band excludes 0", s)
	return nil
}
