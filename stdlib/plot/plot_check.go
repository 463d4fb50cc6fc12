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
)

// The predictive-check kinds (bayesplot's ppc_dens_overlay and ppc_stat,
// Gabry et al. 2019) and the rank plot of chains (mcmc_rank_overlay,
// Vehtari et al. 2021). A check is known by the typed value its record
// keeps (infer.Predictive), not by its field names.

var (
	repColor = color.NRGBA{R: 0x86, G: 0xb4, B: 0xd9, A: 0xff} // light blue: replicates
	obsColor = color.NRGBA{R: 0x08, G: 0x30, B: 0x6b, A: 0xff} // dark blue: the data
)

// maxOverlay is the most replicates a density overlay draws (bayesplot
// users pass 50–100): more only darken the band.
const maxOverlay = 50

// predictiveFigure draws a check: with stat, the statistic's replicated
// distribution against its observed value; else the densities of the
// replicates over the data's. One panel per observed variable.
func predictiveFigure(a *eval.Args, p *infer.Predictive) (figure, error) {
	if len(p.Data) == 0 {
		return figure{}, fmt.Errorf("the check has no observations to draw")
	}
	var panels [][]*plot.Plot
	for _, d := range p.Data {
		var pl *plot.Plot
		var err error
		if a.Given("stat") {
			pl, err = statPanel(a, p, d)
		} else {
			pl, err = overlayPanel(p, d)
		}
		if err != nil {
			return figure{}, err
		}
		panels = append(panels, []*plot.Plot{pl})
	}
	if len(panels) == 1 {
		return figure{single: panels[0][0], w: 6 * vg.Inch, h: 4 * vg.Inch, pad: vg.Millimeter * 2}, nil
	}
	return figure{panels: panels, w: 6 * vg.Inch, h: vg.Length(len(panels)) * 3 * vg.Inch}, nil
}

// overlayPanel draws the replicates over the data: for whole-number data
// (counts) the frequencies (countsPanel), else kernel densities of up to
// maxOverlay evenly spaced replicates, thin and light, and the data's,
// thick and dark. Every curve has the same bandwidth, Silverman's rule
// for the observed data (overlayBandwidth), and the same grid, so a
// replicate with little spread (most do when n is small) is not drawn as
// a spike; the kernels are not reflected at the ends (the data are not
// bounded there). The legend goes where the curves leave room.
func overlayPanel(p *infer.Predictive, d infer.PredictiveData) (*plot.Plot, error) {
	n := min(len(d.Rows), maxOverlay)
	reps := make([][]float64, n)
	for i := range n {
		reps[i] = d.Rows[i*len(d.Rows)/n]
	}
	if wholeNumbers(d.Observed, d.Rows) {
		return countsPanel(p, d)
	}
	h, ok := overlayBandwidth(d.Observed, reps)
	if !ok {
		return nil, fmt.Errorf("cannot draw the density of %s: it needs two or more distinct finite values", d.Name)
	}
	grid := overlayGrid(d.Observed, reps, h, 200)
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %s", predictiveTitle(p), d.Name)
	pl.X.Label.Text = d.Name
	pl.Y.Label.Text = "density"
	var curves []plotter.XYs
	named := false
	for _, r := range reps {
		pts := gaussianKDE(r, h, grid)
		if pts == nil {
			continue
		}
		curves = append(curves, pts)
		name := ""
		if !named {
			name, named = "y_rep", true
		}
		if err := addLineWidth(pl, pts, repColor, name, 0.6); err != nil {
			return nil, err
		}
	}
	obs := gaussianKDE(d.Observed, h, grid)
	if obs == nil {
		return nil, fmt.Errorf("cannot draw the density of %s: it needs two or more distinct finite values", d.Name)
	}
	if err := addLineWidth(pl, obs, obsColor, "y", 2); err != nil {
		return nil, err
	}
	curves = append(curves, obs)
	top := 0.0
	for _, c := range curves {
		top = math.Max(top, maxY(c))
	}
	pl.X.Min, pl.X.Max = grid[0], grid[len(grid)-1]
	pl.Y.Min, pl.Y.Max = 0, top*1.05
	placeLegend(pl, curves, []string{"y_rep", "y"}, false)
	return pl, nil
}

// overlayBandwidth is the bandwidth of every curve of a density overlay:
// Silverman's rule of thumb for the observed data, 0.9 min(sd, IQR/1.34)
// n^(−1/5) (n the number of observations), or, when the data have no
// spread, the same rule for the replicates pooled (with the same n).
func overlayBandwidth(obs []float64, reps [][]float64) (float64, bool) {
	rule := func(v []float64, n int) float64 {
		var f []float64
		for _, x := range v {
			if !isBad(x) {
				f = append(f, x)
			}
		}
		if len(f) < 2 {
			return 0
		}
		sort.Float64s(f)
		sd := stat.StdDev(f, nil)
		iqr := stat.Quantile(0.75, stat.Empirical, f, nil) - stat.Quantile(0.25, stat.Empirical, f, nil)
		if iqr <= 0 {
			iqr = math.Inf(1) // min takes the sd
		}
		return 0.9 * math.Min(sd, iqr/1.34) * math.Pow(float64(n), -0.2)
	}
	if h := rule(obs, len(obs)); h > 0 {
		return h, true
	}
	var pooled []float64
	for _, r := range reps {
		pooled = append(pooled, r...)
	}
	h := rule(pooled, len(obs))
	return h, h > 0
}

// overlayGrid is n points from 3 bandwidths below to 3 above the values
// drawn: all the observed ones and the central 99% of the replicates'
// (a replicate's rare extreme value would otherwise squeeze the rest).
func overlayGrid(obs []float64, reps [][]float64, h float64, n int) []float64 {
	var pooled []float64
	for _, r := range reps {
		for _, x := range r {
			if !isBad(x) {
				pooled = append(pooled, x)
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	if len(pooled) > 0 {
		sort.Float64s(pooled)
		lo = stat.Quantile(0.005, stat.Empirical, pooled, nil)
		hi = stat.Quantile(0.995, stat.Empirical, pooled, nil)
	}
	for _, x := range obs {
		if !isBad(x) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	lo, hi = lo-3*h, hi+3*h
	g := make([]float64, n)
	for i := range g {
		g[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return g
}

// gaussianKDE is the Gaussian kernel density of xs with bandwidth h at the
// points of grid, nil without two finite values.
func gaussianKDE(xs []float64, h float64, grid []float64) plotter.XYs {
	var v []float64
	for _, x := range xs {
		if !isBad(x) {
			v = append(v, x)
		}
	}
	if len(v) < 2 {
		return nil
	}
	norm := 1 / (float64(len(v)) * h * math.Sqrt(2*math.Pi))
	pts := make(plotter.XYs, len(grid))
	for i, x := range grid {
		s := 0.0
		for _, y := range v {
			z := (x - y) / h
			s += math.Exp(-0.5 * z * z)
		}
		pts[i] = plotter.XY{X: x, Y: s * norm}
	}
	return pts
}

// wholeNumbers reports data and replicates that are all whole numbers
// (counts, categories): their overlay is of frequencies.
func wholeNumbers(obs []float64, rows [][]float64) bool {
	whole := func(v []float64) bool {
		for _, x := range v {
			if x != math.Trunc(x) || isBad(x) {
				return false
			}
		}
		return true
	}
	if !whole(obs) {
		return false
	}
	for _, r := range rows {
		if !whole(r) {
			return false
		}
	}
	return true
}

// maxBars is the most distinct values a frequency overlay draws; wider
// counts are grouped into maxBars bins of equal width.
const maxBars = 40

// freqs are the frequencies a counts panel draws: bins of width values
// from lo, the data's count in each, and the replicates' median count with
// its 5% and 95% quantiles.
type freqs struct {
	lo, width         float64
	obs, med, q5, q95 []float64
}

// frequencies bins whole numbers: one bin per value from the least to the
// largest in the data and the replicates, or maxBars bins of equal width
// when there are more values.
func frequencies(obs []float64, rows [][]float64) (freqs, bool) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range obs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	for _, r := range rows {
		for _, x := range r {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	if isBad(lo) || isBad(hi) {
		return freqs{}, false
	}
	f := freqs{lo: lo, width: math.Max(1, math.Ceil((hi-lo+1)/maxBars))}
	nb := int((hi-lo)/f.width) + 1
	count := func(v []float64) []float64 {
		c := make([]float64, nb)
		for _, x := range v {
			c[min(int((x-lo)/f.width), nb-1)]++
		}
		return c
	}
	f.obs = count(obs)
	per := make([][]float64, nb) // per bin, each replicate's count
	for _, r := range rows {
		for b, c := range count(r) {
			per[b] = append(per[b], c)
		}
	}
	for b := range nb {
		sort.Float64s(per[b])
		f.med = append(f.med, stat.Quantile(0.5, stat.Empirical, per[b], nil))
		f.q5 = append(f.q5, stat.Quantile(0.05, stat.Empirical, per[b], nil))
		f.q95 = append(f.q95, stat.Quantile(0.95, stat.Empirical, per[b], nil))
	}
	return f, true
}

// countsPanel is the overlay for whole numbers, as bayesplot's ppc_bars:
// bars of the data's frequency of each value, and for the replicates
// (all of them) the median frequency of each value with its 90% interval
// (5% and 95% quantiles over the replicates), as points with bars.
func countsPanel(p *infer.Predictive, d infer.PredictiveData) (*plot.Plot, error) {
	f, ok := frequencies(d.Observed, d.Rows)
	if !ok {
		return nil, fmt.Errorf("cannot draw the frequencies of %s: it has no finite values", d.Name)
	}
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %s", predictiveTitle(p), d.Name)
	pl.X.Label.Text = d.Name
	if f.width > 1 {
		pl.X.Label.Text = fmt.Sprintf("%s (bins of %g)", d.Name, f.width)
	}
	pl.Y.Label.Text = "count"
	nb := len(f.obs)
	center := func(b int) float64 { return f.lo + float64(b)*f.width + (f.width-1)/2 }
	bars := make(plotter.XYs, nb)
	med := make(plotter.XYs, nb)
	var lines []plotter.XYs
	top := 0.0
	for b := range nb {
		bars[b] = plotter.XY{X: center(b), Y: f.obs[b]}
		med[b] = plotter.XY{X: center(b), Y: f.med[b]}
		lines = append(lines, plotter.XYs{{X: center(b), Y: f.q5[b]}, {X: center(b), Y: f.q95[b]}})
		top = math.Max(top, math.Max(f.obs[b], f.q95[b]))
	}
	for b := range nb {
		// A bar: a filled rectangle 0.8 of the bin wide.
		x0, x1 := center(b)-0.4*f.width, center(b)+0.4*f.width
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: x1, Y: 0}, {X: x1, Y: f.obs[b]}, {X: x0, Y: f.obs[b]}})
		if err != nil {
			return nil, err
		}
		poly.Color, poly.LineStyle.Width = repColor, 0
		pl.Add(poly)
		if b == 0 {
			pl.Legend.Add("y", poly)
		}
	}
	for b, l := range lines {
		line, err := plotter.NewLine(l)
		if err != nil {
			return nil, err
		}
		line.Color, line.Width = obsColor, vg.Points(1.5)
		pl.Add(line)
		if b == 0 {
			pl.Legend.Add("y_rep 90%", line)
		}
	}
	sc, err := plotter.NewScatter(med)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = obsColor, draw.CircleGlyph{}, vg.Points(2.5)
	pl.Add(sc)
	pl.Legend.Add("y_rep median", sc)
	pl.X.Min, pl.X.Max = center(0)-0.6*f.width, center(nb-1)+0.6*f.width
	pl.Y.Min, pl.Y.Max = 0, top*1.05
	// Room for the legend from the bars, the medians and the intervals.
	placeLegend(pl, append(lines, bars, med), []string{"y", "y_rep 90%", "y_rep median"}, false)
	return pl, nil
}

// maxY is the highest point of a curve.
func maxY(pts plotter.XYs) float64 {
	m := 0.0
	for _, p := range pts {
		m = math.Max(m, p.Y)
	}
	return m
}

// predictiveTitle names the check's kind.
func predictiveTitle(p *infer.Predictive) string {
	if p.Kind == "prior_predictive" {
		return "prior predictive"
	}
	return "posterior predictive"
}

// statPanel draws the histogram of T(y_rep) over the draws with a line at
// T(y), and in the title the share of draws with T(y_rep) ≥ T(y) (the
// predictive p-value of Gelman, Meng and Stern 1996).
func statPanel(a *eval.Args, p *infer.Predictive, d infer.PredictiveData) (*plot.Plot, error) {
	name, t, err := statistic(a)
	if err != nil {
		return nil, err
	}
	ty, err := t(d.Observed)
	if err != nil {
		return nil, err
	}
	reps := make(plotter.Values, len(d.Rows))
	above := 0
	for i, r := range d.Rows {
		if reps[i], err = t(r); err != nil {
			return nil, err
		}
		if reps[i] >= ty {
			above++
		}
	}
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %s(%s), p = %.3f", predictiveTitle(p), name, d.Name, float64(above)/float64(len(reps)))
	pl.X.Label.Text = name + "(" + d.Name + ")"
	pl.Y.Label.Text = "draws"
	h, err := plotter.NewHist(reps, 30)
	if err != nil {
		return nil, fmt.Errorf("cannot draw %s of the replicates: %v", name, err)
	}
	h.FillColor = repColor
	h.LineStyle.Color = color.White
	pl.Add(h)
	pl.Legend.Add("T(y_rep)", h)
	top := 0.0
	for _, b := range h.Bins {
		top = math.Max(top, b.Weight)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: ty, Y: 0}, {X: ty, Y: top * 1.1}})
	if err != nil {
		return nil, err
	}
	line.Color, line.Width = obsColor, vg.Points(2.5)
	pl.Add(line)
	pl.Legend.Add("T(y)", line)
	pl.Legend.Top = true
	// T(y) in view with a margin, and room for the legend above the bars.
	lo, hi := math.Min(pl.X.Min, ty), math.Max(pl.X.Max, ty)
	m := 0.05 * (hi - lo)
	pl.X.Min, pl.X.Max = lo-m, hi+m
	pl.Y.Min, pl.Y.Max = 0, top*1.3
	return pl, nil
}

// statistic is the stat: argument: a name of a built-in statistic or a
// function of a vector returning a number.
func statistic(a *eval.Args) (string, func([]float64) (float64, error), error) {
	switch v := a.Value("stat").(type) {
	case eval.Str:
		f, ok := statistics[string(v)]
		if !ok {
			return "", nil, a.Errorf("stat", `stat must be "mean", "sd", "median", "min", "max" or a function of a vector, got %q`, string(v))
		}
		return string(v), func(xs []float64) (float64, error) { return f(xs), nil }, nil
	case eval.Callable:
		return "T", func(xs []float64) (float64, error) {
			r, err := a.Th.CallValue(a.PosOf("stat"), v, &eval.Vec{Data: xs})
			if err != nil {
				return 0, err
			}
			x, ok := eval.ToFloat(r)
			if !ok {
				return 0, a.Errorf("stat", "stat must return a number, got %s", eval.Describe(r))
			}
			return x, nil
		}, nil
	default:
		return "", nil, a.Errorf("stat", `stat must be "mean", "sd", "median", "min", "max" or a function of a vector, got %s`, eval.Describe(v))
	}
}

var statistics = map[string]func([]float64) float64{
	"mean": func(xs []float64) float64 { return stat.Mean(xs, nil) },
	"sd":   func(xs []float64) float64 { return stat.StdDev(xs, nil) },
	"median": func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return stat.Quantile(0.5, stat.LinInterp, s, nil)
	},
	"min": func(xs []float64) float64 { return minOf(xs) },
	"max": func(xs []float64) float64 { return -minOf(negated(xs)) },
}

func minOf(xs []float64) float64 {
	m := math.Inf(1)
	for _, x := range xs {
		m = math.Min(m, x)
	}
	return m
}

func negated(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

// rankBins is the number of rank bins per chain (bayesplot's default 20).
const rankBins = 20

// rankPanels draws a rank plot per parameter element: the draws of every
// chain ranked together, and each chain's histogram of ranks as a step
// line over rankBins bins, with the uniform count dashed. Chains that mix
// well give flat, overlapping lines; a chain stuck apart rises at one end
// (Vehtari et al. 2021, §4.1).
func rankPanels(post *infer.Posterior, params []string) ([][]*plot.Plot, error) {
	cols, err := posteriorColumns(post, params)
	if err != nil {
		return nil, err
	}
	var rows [][]*plot.Plot
	for _, k := range cols {
		ranks := poolRanks(post, k)
		total := len(ranks)
		pl := plot.New()
		pl.Title.Text = post.Names[k] + ": rank histogram per chain"
		pl.X.Label.Text = "rank"
		pl.Y.Label.Text = "draws"
		off, top := 0, 0.0
		for c, ch := range post.Values {
			counts := make([]float64, rankBins)
			for _, r := range ranks[off : off+len(ch)] {
				counts[min(int(r*rankBins/float64(total)), rankBins-1)]++
			}
			off += len(ch)
			top = math.Max(top, slices.Max(counts))
			var pts plotter.XYs
			for b, n := range counts {
				lo, hi := float64(b)*float64(total)/rankBins, float64(b+1)*float64(total)/rankBins
				pts = append(pts, plotter.XY{X: lo, Y: n}, plotter.XY{X: hi, Y: n})
			}
			name := ""
			if len(rows) == 0 {
				name = fmt.Sprintf("chain %d", c+1) // the legend once, in the first panel
			}
			if err := addLineWidth(pl, pts, lineColors[c%len(lineColors)], name, 1); err != nil {
				return nil, err
			}
		}
		expect := float64(len(post.Values[0])) / rankBins
		line, err := plotter.NewLine(plotter.XYs{{X: 0, Y: expect}, {X: float64(total), Y: expect}})
		if err != nil {
			return nil, err
		}
		line.Color = color.Gray{Y: 0x80}
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		pl.Add(line)
		// Room above the bars for the legend, in the first panel.
		pl.Y.Min, pl.Y.Max = 0, top*1.15
		if len(rows) == 0 {
			pl.Y.Max = top * (1.2 + 0.3*float64(len(post.Values)))
		}
		pl.Legend.Top = true
		rows = append(rows, []*plot.Plot{pl})
	}
	return rows, nil
}

// poolRanks ranks column k's draws over all chains (chains one after
// another), from 0, ties sharing their mean rank.
func poolRanks(post *infer.Posterior, k int) []float64 {
	var xs []float64
	for _, ch := range post.Values {
		for _, d := range ch {
			xs = append(xs, d[k])
		}
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return xs[idx[i]] < xs[idx[j]] })
	ranks := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		for m := i; m <= j; m++ {
			ranks[idx[m]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return ranks
}
