package infer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/ecdf"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// Simulation-based calibration (Talts, Betancourt, Simpson, Vehtari and
// Gelman 2018): for each simulation, draw the parameters from the prior
// and data given them by forward sampling (model.Forward), fit the model
// to the simulated data with NUTS (the model given the data by
// eval.Thread.WithData), and rank each parameter's prior draw among its
// thinned posterior draws. If the fit is calibrated the ranks are uniform
// on {0, ..., L}; the ranks' ECDF is tested against uniformity with the
// simultaneous band of Säilynoja, Bürkner and Vehtari (2022, runtime/ecdf).
// Thinning makes the posterior draws roughly independent, as Modrák et
// al. (2023) recommend: autocorrelated draws make the ranks' distribution
// non-uniform even when the fit is calibrated.

// SBCSettings are an SBC run's settings, all reported in its result.
type SBCSettings struct {
	Sims int
	Seed uint64
	// Sampler holds chains, warmup, draws, adapt_delta and max_depth; its
	// seed is drawn per simulation.
	Sampler hmc.Settings
	// Thin is the stride of the kept posterior draws; 0 chooses it by the
	// bulk ESS (ThinRule).
	Thin int
	// Alpha is the band's level: a 1−Alpha simultaneous band.
	Alpha float64
	// NullSims is the number of uniform rank samples the band and the
	// p-values are simulated from.
	NullSims int
}

// ThinRule says how Thin is chosen when it is not given.
const ThinRule = "thin = ⌈N / ESS⌉, N the draws per fit (chains × draws) and ESS the median over the simulations of the smallest bulk ESS among the parameters, so about ESS draws are kept"

// SBC is an SBC run's result: the ranks, the test and the fits'
// diagnostics. Its record keeps it (eval.Record.SetOf) for plot.
type SBC struct {
	Settings SBCSettings
	// Thin is the stride used; ThinAuto tells whether ThinRule chose it.
	Thin     int
	ThinAuto bool
	// L is the number of thinned posterior draws: a rank is in 0..L.
	L int
	// Names are the parameters' scalar names (w.1, w.2 for a vector).
	Names []string
	// Prior[k][j] is simulation k's prior draw of scalar j; Ranks[k][j] its
	// rank among the L thinned draws (how many are below it).
	Prior [][]float64
	Ranks [][]int
	// PValues are the uniformity test's p-values per scalar, Band the
	// simultaneous band both come from.
	PValues []float64
	Band    *ecdf.Band
	// The fits' diagnostics: divergent transitions over all fits and the
	// fits with any; the largest R̂ and the fits with R̂ > 1.01; the median
	// of the fits' smallest bulk ESS.
	Divergences, DivergentFits int
	MaxRhat                    float64
	RhatFits                   int
	MedianESS                  float64
	// Model and Fit name the simulated and the fitted model.
	Model, Fit string
}

// sbcSim is one simulation's outcome before thinning.
type sbcSim struct {
	prior  []float64
	draws  [][][]float64 // chain, draw, scalar
	minESS float64
	div    int
	rhat   float64
}

// SBCRun runs SBC of model sim, fitting model fit (sim itself for a
// calibration check; another model to see what a wrong fit looks like),
// positioned at pos for errors. Simulations run in parallel, one per core,
// each chain after another within its fit; simulation k draws from its own
// stream (rng.SBC.Index(k)), so the result does not depend on the cores.
func SBCRun(ctx context.Context, th *eval.Thread, pos ast.Pos, sim, fit *eval.Model, s SBCSettings) (*SBC, error) {
	simObs, err := sbcObservedNames(sim)
	if err != nil {
		return nil, err
	}
	if fit != sim {
		fitObs, err := sbcObservedNames(fit)
		if err != nil {
			return nil, err
		}
		if !slices.Equal(simObs, fitObs) {
			return nil, fmt.Errorf("the fitted model %s observes %s, but %s simulates %s: they must observe the same variables", fit.Name, strings.Join(fitObs, ", "), sim.Name, strings.Join(simObs, ", "))
		}
	}
	if len(sim.Params) == 0 {
		return nil, fmt.Errorf("model %s has no parameters to calibrate", sim.Name)
	}
	task := progress.Start(ctx, "simulations", s.Sims)
	defer task.Done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(runtime.GOMAXPROCS(0), s.Sims)
	sims := make([]*sbcSim, s.Sims)
	errs := make([]error, s.Sims)
	var names []string
	var namesOnce sync.Once
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wth := th.Fork()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= s.Sims || ctx.Err() != nil {
					return
				}
				res, nm, err := sbcOne(ctx, wth, pos, sim, fit, s, k)
				if err != nil {
					errs[k] = err
					cancel()
					return
				}
				namesOnce.Do(func() { names = nm })
				sims[k] = res
				task.Add(1)
			}
		}()
	}
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || isCanceled(first) && !isCanceled(err)) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return sbcResult(s, sim, fit, names, sims)
}

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }

// sbcOne runs simulation k: a prior draw, its data, the fit.
func sbcOne(ctx context.Context, th *eval.Thread, pos ast.Pos, sim, fit *eval.Model, s SBCSettings, k int) (res *sbcSim, names []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in simulation %d: %v", k+1, r)
		}
	}()
	r := rng.New(s.Seed, rng.SBC.Index(k))
	fd, err := model.ForwardWith(th, sim, r, nil, model.ForwardOptions{Latent: rng.New(s.Seed, rng.ForwardLatent.Index(k))})
	if err != nil {
		return nil, nil, err
	}
	data := map[string]eval.Value{}
	for _, rep := range fd.Data {
		data[rep.Name] = rep.Value
	}
	fm, err := th.WithData(fit, data)
	if err != nil {
		return nil, nil, err
	}
	c, err := model.Compile(th, pos, fm, nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
	if err != nil {
		return nil, nil, err
	}
	hs := s.Sampler
	hs.Seed = r.Uint64()
	hs.Workers = 1
	post, err := Sample(ctx, th, c, hs)
	if err != nil {
		return nil, nil, err
	}
	col := map[string]int{}
	for j, n := range post.Names[:c.Columns()] {
		col[n] = j
	}
	res = &sbcSim{div: post.Summary.Divergences, minESS: math.Inf(1)}
	var cols []int
	for _, nv := range fd.Params {
		vals := paramValues(nv.Value)
		pnames := []string{nv.Name}
		if _, num := nv.Value.(eval.Num); !num {
			pnames = nil
			for _, n := range post.Names[:c.Columns()] {
				if strings.HasPrefix(n, nv.Name+".") {
					pnames = append(pnames, n)
				}
			}
		}
		if len(pnames) != len(vals) {
			return nil, nil, fmt.Errorf("the fitted model %s has no parameter %s of %d values to rank %s's prior draw in", fit.Name, nv.Name, len(vals), sim.Name)
		}
		for i, n := range pnames {
			j, ok := col[n]
			if !ok {
				return nil, nil, fmt.Errorf("the fitted model %s has no parameter %s to rank %s's prior draw in", fit.Name, n, sim.Name)
			}
			cols = append(cols, j)
			names = append(names, n)
			res.prior = append(res.prior, vals[i])
		}
	}
	for _, p := range post.Summary.Params {
		if !slices.Contains(names, p.Name) {
			continue
		}
		res.minESS = math.Min(res.minESS, p.ESSBulk)
		if !math.IsNaN(p.Rhat) {
			res.rhat = math.Max(res.rhat, p.Rhat)
		}
	}
	res.draws = make([][][]float64, len(post.Values))
	for ci, ch := range post.Values {
		res.draws[ci] = make([][]float64, len(ch))
		for d, row := range ch {
			kept := make([]float64, len(cols))
			for i, j := range cols {
				kept[i] = row[j]
			}
			res.draws[ci][d] = kept
		}
	}
	return res, names, nil
}

// sbcObservedNames checks that every observation of m is of a variable by
// name, once: SBC gives the fitted model the simulated data by name. It
// returns the names, sorted.
func sbcObservedNames(m *eval.Model) ([]string, error) {
	seen := map[string]bool{}
	var names []string
	for _, st := range m.Decl().Body {
		t, ok := st.(*ast.Tilde)
		if !ok || t.Kind != ast.Observe {
			continue
		}
		id, ok := t.LHS.(*ast.Ident)
		if !ok {
			return nil, ast.Errorf(t.LHS.Pos(), "sbc gives the fitted model the simulated data by name: observe a variable, `NAME ~ ...`, not %s", ast.Format(t.LHS))
		}
		if seen[id.Name] {
			return nil, ast.Errorf(t.LHS.Pos(), "sbc gives the fitted model the simulated data by name: %s is observed twice", id.Name)
		}
		seen[id.Name] = true
		names = append(names, id.Name)
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("model %s observes no data: there is nothing to simulate and refit", m.Name)
	}
	slices.Sort(names)
	return names, nil
}

// sbcResult thins, ranks and tests.
func sbcResult(s SBCSettings, sim, fit *eval.Model, names []string, sims []*sbcSim) (*SBC, error) {
	out := &SBC{Settings: s, Names: names, Model: sim.Name, Fit: fit.Name, Thin: s.Thin}
	ess := make([]float64, len(sims))
	for k, r := range sims {
		ess[k] = r.minESS
		out.Divergences += r.div
		if r.div > 0 {
			out.DivergentFits++
		}
		out.MaxRhat = math.Max(out.MaxRhat, r.rhat)
		if r.rhat > 1.01 {
			out.RhatFits++
		}
	}
	slices.Sort(ess)
	out.MedianESS = ess[len(ess)/2]
	if len(ess)%2 == 0 {
		out.MedianESS = (ess[len(ess)/2-1] + ess[len(ess)/2]) / 2
	}
	chains, draws := s.Sampler.Chains, s.Sampler.Draws
	if out.Thin == 0 {
		out.ThinAuto = true
		out.Thin = 1
		if n := float64(chains * draws); out.MedianESS > 0 && out.MedianESS < n {
			out.Thin = int(math.Ceil(n / out.MedianESS))
		}
	}
	per := (draws + out.Thin - 1) / out.Thin
	out.L = chains * per
	for _, r := range sims {
		out.Prior = append(out.Prior, r.prior)
		ranks := make([]int, len(names))
		for j, x := range r.prior {
			for _, ch := range r.draws {
				for d := 0; d < len(ch); d += out.Thin {
					if ch[d][j] < x {
						ranks[j]++
					}
				}
			}
		}
		out.Ranks = append(out.Ranks, ranks)
	}
	band, err := ecdf.NewBand(s.Sims, out.L, s.Alpha, s.NullSims, rng.New(s.Seed, rng.SBCNull))
	if err != nil {
		return nil, err
	}
	out.Band = band
	for j := range names {
		out.PValues = append(out.PValues, band.PValue(out.RankColumn(j)))
	}
	return out, nil
}

// RankColumn is scalar j's ranks over the simulations.
func (r *SBC) RankColumn(j int) []int {
	out := make([]int, len(r.Ranks))
	for k, row := range r.Ranks {
		out[k] = row[j]
	}
	return out
}

// Record is the result as the user reads it; it keeps r for plot.
func (r *SBC) Record() *eval.Record {
	ranks := mat.NewDense(len(r.Ranks), len(r.Names), nil)
	prior := mat.NewDense(len(r.Ranks), len(r.Names), nil)
	for k, row := range r.Ranks {
		for j, x := range row {
			ranks.Set(k, j, float64(x))
			prior.Set(k, j, r.Prior[k][j])
		}
	}
	params := &eval.List{}
	pv := eval.NewRecord()
	for j, n := range r.Names {
		params.Elems = append(params.Elems, eval.Str(n))
		pv.Set(n, eval.Num(r.PValues[j]))
	}
	rule := "given"
	if r.ThinAuto {
		rule = ThinRule
	}
	s := r.Settings
	rec := eval.NewRecord().
		Set("kind", eval.Str("sbc")).
		Set("model", eval.Str(r.Model)).
		Set("fit", eval.Str(r.Fit)).
		Set("params", params).
		Set("ranks", eval.NewMat(ranks)).
		Set("prior", eval.NewMat(prior)).
		Set("L", eval.Num(r.L)).
		Set("p_values", pv).
		Set("test", eval.Str(fmt.Sprintf("ECDF uniformity test with a simultaneous %g%% band (Säilynoja, Bürkner and Vehtari 2022), simulated from %d uniform samples", 100*(1-s.Alpha), s.NullSims))).
		Set("sims", eval.Num(s.Sims)).
		Set("seed", eval.Num(s.Seed)).
		Set("chains", eval.Num(s.Sampler.Chains)).
		Set("warmup", eval.Num(s.Sampler.Warmup)).
		Set("draws", eval.Num(s.Sampler.Draws)).
		Set("adapt_delta", eval.Num(s.Sampler.AdaptDelta)).
		Set("max_depth", eval.Num(s.Sampler.MaxDepth)).
		Set("metric", eval.Str(MetricName(s.Sampler.Metric))).
		Set("thin", eval.Num(r.Thin)).
		Set("thin_rule", eval.Str(rule)).
		Set("alpha", eval.Num(s.Alpha)).
		Set("null_sims", eval.Num(s.NullSims)).
		Set("divergences", eval.Num(r.Divergences)).
		Set("divergent_fits", eval.Num(r.DivergentFits)).
		Set("max_rhat", eval.Num(r.MaxRhat)).
		Set("rhat_fits", eval.Num(r.RhatFits)).
		Set("median_min_ess", eval.Num(r.MedianESS))
	return rec.SetOf(r)
}
