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

// overlayPanel draws the kernel density of up to maxOverlay evenly spaced
// replicates, thin and light, and the data's, thick and dark.
func overlayPanel(p *infer.Predictive, d infer.PredictiveData) (*plot.Plot, error) {
	pl := plot.New()
	pl.Title.Text = fmt.Sprintf("%s: %s", predictiveTitle(p), d.Name)
	pl.X.Label.Text = d.Name
	pl.Y.Label.Text = "density"
	n := min(len(d.Rows), maxOverlay)
	named := false
	top := 0.0
	for i := range n {
		pts := kdeXY(d.Rows[i*len(d.Rows)/n])
		if pts == nil {
			continue
		}
		top = math.Max(top, maxY(pts))
		name := ""
		if !named {
			name, named = "y_rep", true
		}
		if err := addLineWidth(pl, pts, repColor, name, 0.6); err != nil {
			return nil, err
		}
	}
	obs := kdeXY(d.Observed)
	if obs == nil {
		return nil, fmt.Errorf("cannot draw the density of %s: it needs two or more distinct finite values", d.Name)
	}
	if err := addLineWidth(pl, obs, obsColor, "y", 2); err != nil {
		return nil, err
	}
	// Every curve whole, with room for the legend at the top.
	pl.Y.Min, pl.Y.Max = 0, math.Max(top, maxY(obs))*1.2
	pl.Legend.Top = true
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

// kdeXY is kde's curve as points, nil when there is none.
func kdeXY(xs []float64) plotter.XYs {
	gx, gy := kde(xs, 200)
	if gx == nil {
		return nil
	}
	pts := make(plotter.XYs, len(gx))
	for i := range gx {
		pts[i] = plotter.XY{X: gx[i], Y: gy[i]}
	}
	return pts
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
