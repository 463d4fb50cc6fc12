package ktest

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/kernels"
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
	// Seconds is the NUTS run's wall time.
	Seconds float64
	// Warnings are the sampler's diagnostics in words (R-hat above 1.1,
	// divergences); the test is valid whatever they say, but a mixture of
	// far-apart lengthscales averages a powerful and a powerless statistic.
	Warnings []string
}

// ChooseBayes draws S lengthscales from the BKE posterior of data (the
// pooled sample for MMD, one variable for HSIC) and returns the mean of
// their rbf kernels, MeanRBF. The rows are first sorted, so the draws are a
// function of the rows as a multiset and of seed. The posterior is that of the isotropic ℓ of
// the derived pseudolikelihood (bke.Model.LogDensity) with τ² fixed and the
// landmarks held out by bke.Split(data, m, seed), under a Gamma(shape,
// rate) prior; NUTS samples u = log(ℓ/c), c the median heuristic of data,
// so that uniform initial points in (−2, 2) are spread around the data's
// scale. A permutation of the labels (MMD) or of the pairing (HSIC) leaves
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
	opt := bke.Options{}
	if (n-m)*m <= 1<<14 {
		opt.Workers = 1 // a small pass costs less than its goroutines
	}
	md, err := bke.New(rest, z, opt)
	if err != nil {
		return Chosen{}, err
	}
	res, err := hmc.Sample(ctx, func() (hmc.Model, error) {
		return &ellPosterior{md: md, tau2: s.Tau2, shape: s.Shape, rate: s.Rate, scale: scale}, nil
	}, hmc.Settings{Chains: s.Chains, Warmup: s.Warmup, Draws: s.PerChain, Seed: seed,
		Init: hmc.InitUniform, Workers: s.Workers})
	if err != nil {
		return Chosen{}, fmt.Errorf("bayes: NUTS: %w", err)
	}
	info := &BayesInfo{Settings: s, Seconds: res.Elapsed.Seconds()}
	logs := make([][]float64, len(res.Chains))
	var all []float64 // ℓ, chain after chain
	for c, ch := range res.Chains {
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
	if info.Rhat > 1.1 {
		info.Warnings = append(info.Warnings, fmt.Sprintf(
			"R-hat %.2f: the chains disagree (their means of ell: %s): the posterior may have several modes, or the chains are too short; the draws mix them",
			info.Rhat, fmtList(info.ChainMeans)))
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
