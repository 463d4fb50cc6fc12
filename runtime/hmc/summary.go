package hmc

import (
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// ParamSummary summarises the draws of one quantity.
type ParamSummary struct {
	Name             string
	Mean, SD         float64
	Q5, Q50, Q95     float64
	Rhat             float64
	ESSBulk, ESSTail float64
	MCSEMean         float64
}

// Summary is a posterior summary in the form LANGUAGE.md fixes, plus
// diagnostics.
type Summary struct {
	Chains, Warmup, Draws int
	Divergences           int
	Seconds               float64
	Params                []ParamSummary
	// EBFMI per chain.
	EBFMI []float64
	// TreeDepthHits counts kept transitions that hit MaxDepth.
	TreeDepthHits int
	MaxDepth      int
	// AdaptDelta is the run's target acceptance statistic (0 if unknown).
	AdaptDelta float64
	// GradEvals counts log density evaluations.
	GradEvals int64
	// Warnings in Stan's spirit, plus any the model adds.
	Warnings []string
}

// Summarize computes the summary of constrained draws: values[c][i][k] is
// quantity k at draw i of chain c, named names[k].
func Summarize(names []string, values [][][]float64, r *Result, maxDepth int) *Summary {
	s := &Summary{Chains: len(values), Warmup: r.Warmup, Draws: r.Draws, Seconds: r.Elapsed.Seconds(),
		GradEvals: r.GradEvals, MaxDepth: maxDepth, AdaptDelta: r.AdaptDelta}
	for _, ch := range r.Chains {
		s.Divergences += ch.Divergences()
		s.EBFMI = append(s.EBFMI, EBFMI(ch.Energy))
		for _, d := range ch.TreeDepth {
			if d >= maxDepth {
				s.TreeDepthHits++
			}
		}
	}
	// The columns are summarised independently, on every core: a model
	// with a derived vector (GARCH's 199 variances) has hundreds. A
	// worker takes columnBlock columns at a time and gathers them in one
	// pass over the draws' rows, which a column at a time would read
	// with a stride of the row's length. A posterior of few columns is
	// cut finer, into at least four blocks a worker where it can be:
	// eight schools' 10 columns in blocks of 8 and 2 left one core
	// summarising 8 while the other had finished (a column is about
	// 0.6 ms of CPU).
	s.Params = make([]ParamSummary, len(names))
	workers := runtime.GOMAXPROCS(0)
	block := max(1, min(columnBlock, (len(names)+4*workers-1)/(4*workers)))
	blocks := (len(names) + block - 1) / block
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(workers, blocks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w columnScratch
			var g columnGather
			for b := int(next.Add(1)) - 1; b < blocks; b = int(next.Add(1)) - 1 {
				k0 := b * block
				k1 := min(k0+block, len(names))
				cols := g.gather(values, k0, k1)
				for k := k0; k < k1; k++ {
					s.Params[k] = columnSummary(names[k], cols[k-k0], &w)
				}
			}
		}()
	}
	wg.Wait()
	s.Warnings = s.standardWarnings()
	return s
}

// summarizeColumn is column k's summary.
func summarizeColumn(name string, values [][][]float64, k int) ParamSummary {
	return columnSummary(name, columnOf(values, k), &columnScratch{})
}

// columnBlock is how many columns a summary worker gathers at once: a
// cache line of each row.
const columnBlock = 8

// columnGather is a summary worker's storage for a block of columns.
type columnGather struct {
	cols [][][]float64 // cols[j][c] is column k0+j's chain c
}

// gather is columns k0..k1−1 of values, chain by chain (columnOf of each),
// in g's storage.
func (g *columnGather) gather(values [][][]float64, k0, k1 int) [][][]float64 {
	nb := k1 - k0
	for len(g.cols) < nb {
		g.cols = append(g.cols, nil)
	}
	for j := range nb {
		if len(g.cols[j]) != len(values) {
			g.cols[j] = make([][]float64, len(values))
		}
		for c := range values {
			if cap(g.cols[j][c]) < len(values[c]) {
				g.cols[j][c] = make([]float64, len(values[c]))
			}
			g.cols[j][c] = g.cols[j][c][:len(values[c])]
		}
	}
	cols := g.cols[:nb]
	for c := range values {
		for i, row := range values[c] {
			for j, x := range row[k0:k1] {
				cols[j][c][i] = x
			}
		}
	}
	return cols
}

// columnOf is quantity k's draws, chain by chain.
func columnOf(values [][][]float64, k int) [][]float64 {
	chains := make([][]float64, len(values))
	for c := range values {
		chains[c] = make([]float64, len(values[c]))
		for i := range values[c] {
			chains[c][i] = values[c][i][k]
		}
	}
	return chains
}

// The diagnostics' warning thresholds, as Vehtari, Gelman, Simpson,
// Carpenter and Bürkner (2021, "Rank-normalization, folding, and
// localization", §4) recommend: split R-hat above RhatLimit, or a bulk or
// tail effective sample size below ESSPerChain per chain. Every summary of
// draws (summary, the "bayes" kernel choice) warns at these.
const (
	RhatLimit   = 1.01
	ESSPerChain = 100
)

func (s *Summary) standardWarnings() []string {
	var w []string
	if s.Warmup == 0 {
		w = append(w, "warmup: 0: the step size (1) and the metric (the identity) are not adapted and the chains start at their initial points, so the draws may be far from the posterior and the sampler inefficient; keep the default warm-up (1000) or at least 150")
	}
	// Split R-hat and the effective sample sizes need 4 draws per chain;
	// with fewer they are NaN, which is not a finding about the chains.
	if s.Draws < 4 {
		w = append(w, fmt.Sprintf("%d draws per chain are too few to estimate R-hat, ESS and MCSE (shown as NaN); run at least 4, and 100 or more for reliable summaries", s.Draws))
	}
	var highRhat, lowESS []string
	for _, p := range s.Params {
		if s.Draws < 4 {
			break
		}
		if p.Rhat > RhatLimit || math.IsNaN(p.Rhat) && !math.IsNaN(p.SD) && p.SD > 0 {
			highRhat = append(highRhat, fmt.Sprintf("%s (%.2f)", p.Name, p.Rhat))
		}
		if p.ESSBulk < ESSPerChain*float64(s.Chains) || p.ESSTail < ESSPerChain*float64(s.Chains) {
			lowESS = append(lowESS, p.Name)
		}
	}
	if len(highRhat) > 0 {
		w = append(w, "R-hat above 1.01 for "+strings.Join(highRhat, ", ")+
			": the chains disagree, so the draws do not represent one posterior; run longer, or look for several modes or a badly identified model")
	}
	if len(lowESS) > 0 {
		w = append(w, "effective sample size below 100 per chain for "+strings.Join(lowESS, ", ")+
			": means and quantiles are unreliable; run more draws")
	}
	if s.Divergences > 0 {
		w = append(w, fmt.Sprintf("%d of %d transitions after warm-up diverged: the sampler cannot follow the posterior's curvature, so the draws may be biased; %s",
			s.Divergences, s.Chains*s.Draws, divergenceAdvice(s.AdaptDelta)))
	}
	var low []string
	for c, e := range s.EBFMI {
		if e < 0.3 {
			low = append(low, fmt.Sprintf("chain %d (%.2f)", c+1, e))
		}
	}
	if len(low) > 0 {
		w = append(w, "E-BFMI below 0.3 for "+strings.Join(low, ", ")+": the posterior may have heavy tails or a funnel that the sampler explores poorly")
	}
	if s.TreeDepthHits > 0 {
		w = append(w, fmt.Sprintf("%d transitions hit the maximum tree depth %d: efficiency suffers; raise max_depth or reparameterise", s.TreeDepthHits, s.MaxDepth))
	}
	return w
}

// divergenceAdvice says what to try after divergences in a run adapted to
// adapt_delta delta: a higher target than the one used (0.95, then 0.99),
// and once that is 0.99 or more, only reparameterising.
func divergenceAdvice(delta float64) string {
	switch {
	case delta <= 0:
		return "raise adapt_delta (e.g. 0.95) or reparameterise"
	case delta < 0.95:
		return fmt.Sprintf("raise adapt_delta from %g (e.g. 0.95) or reparameterise", delta)
	case delta < 0.99:
		return fmt.Sprintf("raise adapt_delta from %g (e.g. 0.99) or reparameterise", delta)
	}
	return fmt.Sprintf("adapt_delta is already %g, so smaller steps will not help: reparameterise (e.g. a non-centred form for a hierarchical scale)", delta)
}
