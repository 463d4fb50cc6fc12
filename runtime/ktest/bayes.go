package ktest

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
	"github.com/kml-lang/kml/runtime/stats"
)

// ChoiceBayes integrates the test over the BKE posterior of the
// lengthscale: S lengthscales drawn by NUTS, the test run with the mean of
// their rbf kernels (ChooseBayes).
const ChoiceBayes Choice = "bayes"

// BayesSettings configure ChooseBayes. The zero value works.
type BayesSettings struct {
	// Draws is S, the number of posterior lengthscales averaged; default 20.
	Draws int
	// Chains, Warmup and PerChain are the NUTS run: Chains chains (default
	// 2, so that R-hat can compare them), each Warmup adaptation
	// iterations (default 200) and PerChain kept iterations (default
	// max(100, 5·⌈S/Chains⌉)); the S draws are taken evenly spaced from the
	// Chains·PerChain kept ones.
	Chains, Warmup, PerChain int
	// Landmarks is the number m of rows held out (seeded) as the BKE
	// landmarks; default min(50, n/5), as for "bkl".
	Landmarks int
	// Tau2 is the fixed τ²; default 1, as for "bkl". (With ℓ and τ² both
	// free the pseudolikelihood is degenerate; MATH.md §1.)
	Tau2 float64
	// Shape and Rate are the Gamma prior on ℓ; default Gamma(1, 1), the
	// prior of the BKE paper's Stan program.
	Shape, Rate float64
	// Variant is the BKE density the posterior uses: bke.Derived (the
	// default) or bke.Published.
	Variant bke.Variant
	// Workers bounds the chains run at once; default min(Chains, GOMAXPROCS).
	Workers int
}

func (s BayesSettings) withDefaults() BayesSettings {
	if s.Draws <= 0 {
		s.Draws = 20
	}
	if s.Chains <= 0 {
		s.Chains = 2
	}
	if s.Warmup <= 0 {
		s.Warmup = 200
	}
	if s.PerChain <= 0 {
		s.PerChain = max(100, 5*((s.Draws+s.Chains-1)/s.Chains))
	}
	if s.Tau2 == 0 {
		s.Tau2 = 1
	}
	if s.Shape == 0 {
		s.Shape = 1
	}
	if s.Rate == 0 {
		s.Rate = 1
	}
	if s.Workers <= 0 {
		s.Workers = min(s.Chains, runtime.GOMAXPROCS(0))
	}
	return s
}

// BayesInfo is what ChooseBayes reports about its draws.
type BayesInfo struct {
	// Mean, Q5 and Q95 summarise the S lengthscales used (Chosen.Ell).
	Mean, Q5, Q95 float64
	// Settings are the settings used, defaults filled in.
	Settings BayesSettings
	// Divergences counts divergent kept transitions over all chains;
	// Rhat (NaN with one chain) and ESS (bulk) are of log ℓ over every
	// kept iteration; ChainMeans is each chain's posterior mean of ℓ, which
	// shows chains stuck in different modes.
	Divergences int
	Rhat, ESS   float64
	ChainMeans  []float64
	// Modes are the local maxima of the posterior of ℓ on the grid
	// (gridStart), at most three, highest first; Inits are
	// the chains' starting lengthscales.
	Modes []BayesMode
	Inits []float64
	// Seconds is the wall time of the grid and the NUTS run.
	Seconds float64
	// Warnings are the sampler's diagnostics in words (R-hat and ESS at
	// the thresholds summary uses, hmc.RhatLimit and hmc.ESSPerChain,
	// divergences, several modes); the test is valid whatever they say, but a mixture of
	// far-apart lengthscales averages a powerful and a powerless statistic.
	Warnings []string
}

// BayesMode is a local maximum of the posterior of ℓ on ChooseBayes's grid
// with the posterior mass of its basin.
type BayesMode struct {
	Ell, Mass float64
	// Below is how far the log posterior at the mode lies below the
	// grid's highest value, in nats.
	Below float64
}

// ChooseBayes draws S lengthscales from the BKE posterior of data (the
// pooled sample for MMD, one variable for HSIC) and returns the mean of
// their rbf kernels, MeanRBF. The rows are first sorted, so the draws are a
// function of the rows as a multiset and of seed. The posterior is that of the isotropic ℓ of
// the derived pseudolikelihood (bke.Model.LogDensity) with τ² fixed and the
// landmarks held out by bke.Split(data, m, seed), under a Gamma(shape,
// rate) prior. NUTS samples u = log(ℓ/c), c the median heuristic of data;
// its chains start at quantiles of the posterior evaluated on a grid of
// 100 values of u (gridStart), because the posterior can have far-apart
// modes that a chain does not cross. A permutation of the labels (MMD) or of the pairing (HSIC) leaves
// the multiset unchanged, so the draws are held fixed by a permutation
// test and the test keeps its level.
//
// Because MMD² and HSIC are linear in each kernel matrix, the test with
// MeanRBF has for its statistic the mean over the draws of MMD²_ℓs (for
// HSIC, the mean over all S_x·S_y pairs (ℓx_s, ℓy_t) of HSIC), and its
// permutation null recomputes that mean with the same draws.
func ChooseBayes(ctx context.Context, data *mat.Dense, s BayesSettings, seed uint64) (Chosen, error) {
	s = s.withDefaults()
	n, d := data.Dims()
	if s.Landmarks <= 0 {
		s.Landmarks = min(50, n/5)
	}
	m := s.Landmarks
	if m < max(d, 1) || m >= n {
		return Chosen{}, fmt.Errorf("too few rows (%d) to hold out %d landmarks for bayes", n, m)
	}
	if !(s.Tau2 > 0) || math.IsInf(s.Tau2, 1) {
		return Chosen{}, fmt.Errorf("bayes: tau2 = %g must be positive and finite", s.Tau2)
	}
	if !(s.Shape > 0 && s.Rate > 0) {
		return Chosen{}, fmt.Errorf("bayes: the Gamma prior's shape %g and rate %g must be positive", s.Shape, s.Rate)
	}
	data = sortedRows(data)
	scale, err := kernels.MedianHeuristic(data, seed)
	if err != nil {
		return Chosen{}, err
	}
	if scale == 0 {
		return Chosen{}, fmt.Errorf("the median distance is 0: every pair of points coincides")
	}
	rest, z := bke.Split(data, m, seed)
	opt := bke.Options{Variant: s.Variant}
	if (n-m)*m <= 1<<14 {
		opt.Workers = 1 // a small pass costs less than its goroutines
	}
	md, err := bke.New(rest, z, opt)
	if err != nil {
		return Chosen{}, err
	}
	newPost := func() *ellPosterior {
		return &ellPosterior{md: md, tau2: s.Tau2, shape: s.Shape, rate: s.Rate, scale: scale}
	}
	start := time.Now()
	info := &BayesInfo{Settings: s}
	inits := gridStart(newPost(), s.Chains, info)
	chains, err := runChains(ctx, newPost, inits, s, seed)
	if err != nil {
		return Chosen{}, fmt.Errorf("bayes: NUTS: %w", err)
	}
	info.Seconds = time.Since(start).Seconds()
	logs := make([][]float64, len(chains))
	var all []float64 // ℓ, chain after chain
	for c, ch := range chains {
		info.Divergences += ch.Divergences()
		logs[c] = make([]float64, len(ch.Draws))
		var sum float64
		for i, q := range ch.Draws {
			logs[c][i] = q[0]
			ell := scale * math.Exp(q[0])
			all = append(all, ell)
			sum += ell
		}
		info.ChainMeans = append(info.ChainMeans, sum/float64(len(ch.Draws)))
	}
	info.Rhat, info.ESS = math.NaN(), hmc.ESSBulk(logs)
	if len(logs) > 1 {
		info.Rhat = hmc.Rhat(logs)
	}
	ells := make([]float64, s.Draws)
	for k := range ells {
		ells[k] = all[k*len(all)/s.Draws]
	}
	sorted := append([]float64(nil), ells...)
	sort.Float64s(sorted)
	info.Mean = mean(ells)
	info.Q5, info.Q95 = stats.SortedQuantile(sorted, 0.05), stats.SortedQuantile(sorted, 0.95)
	if info.Rhat > hmc.RhatLimit {
		info.Warnings = append(info.Warnings, fmt.Sprintf(
			"R-hat of log ell %.3f, above %g: the chains disagree (their means of ell: %s): the posterior may have several modes, or the chains are too short; the draws mix them",
			info.Rhat, hmc.RhatLimit, fmtList(info.ChainMeans)))
	}
	if limit := hmc.ESSPerChain * float64(len(chains)); info.ESS < limit {
		info.Warnings = append(info.Warnings, fmt.Sprintf(
			"effective sample size of log ell %.0f, below %g (%d per chain, %d chains of %d iterations): the draws' mean and quantiles are unreliable",
			info.ESS, limit, hmc.ESSPerChain, len(chains), s.PerChain))
	}
	var big []string
	for _, md := range info.Modes {
		if md.Mass >= 0.05 {
			big = append(big, fmt.Sprintf("%.3g (%.2f)", md.Ell, md.Mass))
		}
	}
	if len(big) > 1 {
		info.Warnings = append(info.Warnings, fmt.Sprintf(
			"the posterior of ell has %d modes with mass of 5%% or more, at %s: the draws mix a powerful and a powerless kernel, in proportions set by the chains' starting points",
			len(big), strings.Join(big, ", ")))
	}
	if info.Divergences > 0 {
		info.Warnings = append(info.Warnings, fmt.Sprintf("%d of %d NUTS transitions diverged", info.Divergences, s.Chains*s.PerChain))
	}
	k, err := NewMeanRBF(ells)
	if err != nil {
		return Chosen{}, err
	}
	return Chosen{Kernel: k, Choice: ChoiceBayes, Ell: ells, Landmarks: m, Tau2: s.Tau2, Bayes: info}, nil
}

// gridPoints is the size of the grid on which ChooseBayes evaluates the
// posterior before sampling: u = log(ℓ/c) from log 10⁻³ to log 10², as BKL's.
const gridPoints = 100

// gridStart evaluates the log posterior of u on the grid, records its
// modes (local maxima with the posterior mass of their basins, the grid
// cells between the neighbouring minima) in info, and returns the chains'
// starting points: chain c starts at the grid posterior's (c + ½)/C
// quantile. The posterior of ℓ can have modes separated by hundreds of
// nats, which a chain started in the wrong one never leaves; starting from
// the grid puts the chains where the mass is, and in different modes when
// no mode holds most of it.
func gridStart(p *ellPosterior, chains int, info *BayesInfo) []float64 {
	lo, hi := math.Log(1e-3), math.Log(1e2)
	step := (hi - lo) / (gridPoints - 1)
	u := make([]float64, gridPoints)
	lp := make([]float64, gridPoints)
	top := math.Inf(-1)
	for k := range u {
		u[k] = lo + float64(k)*step
		lp[k] = p.value(u[k])
		top = math.Max(top, lp[k])
	}
	if math.IsInf(top, -1) {
		// Nothing evaluates: let NUTS report it from the middle.
		out := make([]float64, chains)
		return out
	}
	w := make([]float64, gridPoints)
	var total float64
	for k, v := range lp {
		w[k] = math.Exp(v - top)
		total += w[k]
	}
	for k := range w {
		w[k] /= total
	}
	// Modes: each local maximum owns the cells down to the minima on
	// either side.
	for k := range lp {
		if math.IsInf(lp[k], -1) || (k > 0 && lp[k-1] >= lp[k]) || (k < gridPoints-1 && lp[k+1] > lp[k]) {
			continue
		}
		mass := w[k]
		for j := k - 1; j >= 0 && lp[j] <= lp[j+1]; j-- {
			mass += w[j]
		}
		for j := k + 1; j < gridPoints && lp[j] <= lp[j-1]; j++ {
			mass += w[j]
		}
		info.Modes = append(info.Modes, BayesMode{Ell: p.scale * math.Exp(u[k]), Mass: mass, Below: top - lp[k]})
	}
	sort.SliceStable(info.Modes, func(a, b int) bool { return info.Modes[a].Below < info.Modes[b].Below })
	if len(info.Modes) > 3 {
		info.Modes = info.Modes[:3]
	}
	out := make([]float64, chains)
	for c := range out {
		target, cum := (float64(c)+0.5)/float64(chains), 0.0
		for k := range w {
			cum += w[k]
			if cum >= target || k == gridPoints-1 {
				out[c] = u[k]
				break
			}
		}
		info.Inits = append(info.Inits, p.scale*math.Exp(out[c]))
	}
	return out
}

// runChains runs one NUTS chain from each starting point, at most
// s.Workers at once, chain c seeded from (seed, rng.BayesChain + c).
func runChains(ctx context.Context, newPost func() *ellPosterior, inits []float64, s BayesSettings, seed uint64) ([]*hmc.Chain, error) {
	chains := make([]*hmc.Chain, len(inits))
	errs := make([]error, len(inits))
	sem := make(chan struct{}, s.Workers)
	var wg sync.WaitGroup
	for c := range inits {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			// A panic here would end the process: a dense kernel
			// stopped by runtime/interrupt (the run's context is then
			// done, so the error reads "interrupted"), or a bug.
			defer func() {
				if r := recover(); r != nil {
					errs[c] = fmt.Errorf("internal error: %v", r)
				}
			}()
			res, err := hmc.Sample(ctx, func() (hmc.Model, error) { return newPost(), nil }, hmc.Settings{
				Chains: 1, Warmup: s.Warmup, Draws: s.PerChain, Workers: 1,
				Seed: rng.New(seed, rng.BayesChain.Index(c)).Uint64(), InitPoint: []float64{inits[c]}})
			if err != nil {
				errs[c] = err
				return
			}
			chains[c] = res.Chains[0]
		}(c)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return chains, nil
}

// sortedRows copies data with its rows in lexicographic order, so that
// what is computed from it depends on the rows as a multiset: not even
// the rounding of a sum can depend on the order of the rows.
func sortedRows(data *mat.Dense) *mat.Dense {
	n, d := data.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ra, rb := data.RawRowView(idx[a]), data.RawRowView(idx[b])
		for j := range ra {
			if ra[j] != rb[j] {
				return ra[j] < rb[j]
			}
		}
		return false
	})
	out := mat.NewDense(n, d, nil)
	for i, r := range idx {
		out.SetRow(i, data.RawRowView(r))
	}
	return out
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func fmtList(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.3g", x)
	}
	return strings.Join(parts, ", ")
}

// ellPosterior is the log posterior of u = log(ℓ/scale): the BKE log
// pseudolikelihood at ℓ, the Gamma(shape, rate) prior on ℓ and the
// Jacobian log ℓ of ℓ = scale·e^u (constants dropped). One per chain.
type ellPosterior struct {
	md                       *bke.Model
	tau2, shape, rate, scale float64
	g                        bke.Grad
}

func (p *ellPosterior) Dim() int { return 1 }

// value is the log posterior at u without its gradient (−Inf where the
// pseudolikelihood cannot be evaluated).
func (p *ellPosterior) value(u float64) float64 {
	ell := p.scale * math.Exp(u)
	lp, err := p.md.LogDensity(bke.Hyper{Ell: []float64{ell}, Tau2: p.tau2}, nil)
	if err != nil || math.IsNaN(lp) {
		return math.Inf(-1)
	}
	return lp + p.shape*math.Log(ell) - p.rate*ell
}

func (p *ellPosterior) LogDensity(grad, q []float64) (float64, error) {
	ell := p.scale * math.Exp(q[0])
	lp, err := p.md.LogDensity(bke.Hyper{Ell: []float64{ell}, Tau2: p.tau2}, &p.g)
	if err != nil {
		return math.Inf(-1), err
	}
	// log Gamma(ℓ; a, b) + log ℓ = a log ℓ − bℓ + const.
	lp += p.shape*math.Log(ell) - p.rate*ell
	grad[0] = p.g.Ell[0]*ell + p.shape - p.rate*ell
	return lp, nil
}

// MeanRBF is the mean of rbf kernels at the lengthscales Ell,
// k(x, y) = (1/S) Σ_s exp(−|x − y|²/(2ℓ_s²)): a positive semi-definite
// kernel (a convex combination of such). Its Gram matrix is the mean of
// the rbf Gram matrices, so any statistic linear in the Gram matrix is the
// mean of the per-lengthscale statistics. Its hyperparameters are the S
// lengthscales.
type MeanRBF struct {
	Ell []float64
}

var _ kernels.Kernel = (*MeanRBF)(nil)

// NewMeanRBF returns the mean of rbf(ℓ) over ells (at least one, each
// positive and finite).
func NewMeanRBF(ells []float64) (*MeanRBF, error) {
	if len(ells) == 0 {
		return nil, fmt.Errorf("a mean of rbf kernels needs at least one lengthscale")
	}
	for i, l := range ells {
		if !(l > 0) || math.IsInf(l, 1) {
			return nil, fmt.Errorf("ell.%d = %g: the lengthscale must be positive and finite", i+1, l)
		}
	}
	return &MeanRBF{Ell: append([]float64(nil), ells...)}, nil
}

func (k *MeanRBF) NumHyper() int                 { return len(k.Ell) }
func (k *MeanRBF) Hyper(dst []float64) []float64 { return append(dst, k.Ell...) }
func (k *MeanRBF) Dim() int                      { return 0 }

func (k *MeanRBF) HyperNames() []string {
	names := make([]string, len(k.Ell))
	for i := range names {
		names[i] = fmt.Sprintf("ell.%d", i+1)
	}
	return names
}

func (k *MeanRBF) WithHyper(h []float64) (kernels.Kernel, error) {
	if len(h) != len(k.Ell) {
		return nil, fmt.Errorf("%d hyperparameters for a mean of %d rbf kernels", len(h), len(k.Ell))
	}
	return NewMeanRBF(h)
}

// String is the kernel as KML source: "0.5 * (rbf(1) + rbf(2))".
func (k *MeanRBF) String() string {
	parts := make([]string, len(k.Ell))
	for i, l := range k.Ell {
		parts[i] = "rbf(" + fmt.Sprintf("%.6g", l) + ")"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return fmt.Sprintf("%.6g * (%s)", 1/float64(len(parts)), strings.Join(parts, " + "))
}

func sqDist(x, y []float64) float64 {
	var u float64
	for d, xv := range x {
		t := xv - y[d]
		u += t * t
	}
	return u
}

// Eval computes each term as kernels' rbf does (the same operations, so
// S = 1 reproduces rbf(ℓ) exactly).
func (k *MeanRBF) Eval(x, y []float64) float64 {
	d2 := sqDist(x, y)
	var s float64
	for _, l := range k.Ell {
		s += fastexp.ExpNegOrZero(-0.5 * (d2 / (l * l)))
	}
	return s / float64(len(k.Ell))
}

func (k *MeanRBF) GradHyper(dst, x, y []float64) float64 {
	d2 := sqDist(x, y)
	inv := 1 / float64(len(k.Ell))
	var s float64
	for i, l := range k.Ell {
		v := fastexp.ExpNegOrZero(-0.5 * (d2 / (l * l)))
		s += v
		dst[i] = inv * v * d2 / (l * l * l)
	}
	return s * inv
}

func (k *MeanRBF) GradX(dst, x, y []float64) float64 {
	d2 := sqDist(x, y)
	inv := 1 / float64(len(k.Ell))
	clear(dst)
	var s float64
	for _, l := range k.Ell {
		v := fastexp.ExpNegOrZero(-0.5 * (d2 / (l * l)))
		s += v
		c := -inv * v / (l * l)
		for d := range dst {
			dst[d] += c * (x[d] - y[d])
		}
	}
	return s * inv
}
