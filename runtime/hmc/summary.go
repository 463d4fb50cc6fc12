package hmc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/runtime/stats"
)

// ParamSummary summarises the draws of one quantity.
type ParamSummary struct {
	Name             string
	Mean, SD         float64
	Q5, Q50, Q95     float64
	Rhat             float64
	ESSBulk, ESSTail float64
	MCSEMean, MCSESD float64
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
	// GradEvals counts log density evaluations.
	GradEvals int64
	// Warnings in Stan's spirit, plus any the model adds.
	Warnings []string
}

// Summarize computes the summary of constrained draws: values[c][i][k] is
// quantity k at draw i of chain c, named names[k].
func Summarize(names []string, values [][][]float64, r *Result, maxDepth int) *Summary {
	s := &Summary{Chains: len(values), Warmup: r.Warmup, Draws: r.Draws, Seconds: r.Elapsed.Seconds(),
		GradEvals: r.GradEvals, MaxDepth: maxDepth}
	for _, ch := range r.Chains {
		s.Divergences += ch.Divergences()
		s.EBFMI = append(s.EBFMI, EBFMI(ch.Energy))
		for _, d := range ch.TreeDepth {
			if d >= maxDepth {
				s.TreeDepthHits++
			}
		}
	}
	for k, name := range names {
		chains := make([][]float64, len(values))
		for c := range values {
			chains[c] = make([]float64, len(values[c]))
			for i := range values[c] {
				chains[c][i] = values[c][i][k]
			}
		}
		all := pooled(chains)
		mean, v := meanVar(all)
		ps := ParamSummary{Name: name, Mean: mean, SD: math.Sqrt(v),
			Q5: stats.Quantile(all, 0.05), Q50: stats.Quantile(all, 0.5), Q95: stats.Quantile(all, 0.95),
			Rhat: Rhat(chains), ESSBulk: ESSBulk(chains), ESSTail: ESSTail(chains), MCSEMean: MCSEMean(chains)}
		s.Params = append(s.Params, ps)
	}
	s.Warnings = s.standardWarnings()
	return s
}

func (s *Summary) standardWarnings() []string {
	var w []string
	var highRhat, lowESS []string
	for _, p := range s.Params {
		if p.Rhat > 1.01 || math.IsNaN(p.Rhat) && !math.IsNaN(p.SD) && p.SD > 0 {
			highRhat = append(highRhat, fmt.Sprintf("%s (%.2f)", p.Name, p.Rhat))
		}
		if p.ESSBulk < 100*float64(s.Chains) || p.ESSTail < 100*float64(s.Chains) {
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
		w = append(w, fmt.Sprintf("%d of %d transitions after warm-up diverged: the sampler cannot follow the posterior's curvature, so the draws may be biased; raise adapt_delta (e.g. 0.95) or reparameterise",
			s.Divergences, s.Chains*s.Draws))
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

// Table renders the summary as a person reads it: one line per quantity
// with mean, MCSE, sd, quantiles, ESS and R̂, then the warnings.
func (s *Summary) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d chains, %d warm-up + %d draws each, %d divergences, %.2f s\n",
		s.Chains, s.Warmup, s.Draws, s.Divergences, s.Seconds)
	width := 4
	for _, p := range s.Params {
		width = max(width, len(p.Name))
	}
	fmt.Fprintf(&b, "%-*s %10s %9s %10s %10s %10s %10s %8s %8s %6s\n", width, "",
		"mean", "mcse", "sd", "5%", "50%", "95%", "ess_bulk", "ess_tail", "rhat")
	for _, p := range s.Params {
		fmt.Fprintf(&b, "%-*s %10s %9s %10s %10s %10s %10s %8s %8s %6s\n", width, p.Name,
			g4(p.Mean), g4(p.MCSEMean), g4(p.SD), g4(p.Q5), g4(p.Q50), g4(p.Q95),
			whole(p.ESSBulk), whole(p.ESSTail), fixed2(p.Rhat))
	}
	for _, w := range s.Warnings {
		b.WriteString("warning: " + w + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func g4(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func whole(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
}

func fixed2(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// MarshalJSON writes the object of LANGUAGE.md, parameters in model order,
// with the diagnostics in a "diagnostics" object and NaN as null.
func (s *Summary) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"chains":%d,"warmup":%d,"draws":%d,"divergences":%d,"seconds":%s,"params":{`,
		s.Chains, s.Warmup, s.Draws, s.Divergences, num(s.Seconds))
	for i, p := range s.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		fmt.Fprintf(&b, `%s:{"mean":%s,"sd":%s,"q5":%s,"q50":%s,"q95":%s,"rhat":%s,"ess_bulk":%s,"ess_tail":%s}`,
			name, num(p.Mean), num(p.SD), num(p.Q5), num(p.Q50), num(p.Q95), num(p.Rhat), num(p.ESSBulk), num(p.ESSTail))
	}
	// Beyond the documented object, the diagnostics sit in an object of
	// their own so that "params" keeps exactly the documented keys.
	b.WriteString(`},"diagnostics":{"mcse_mean":{`)
	for i, p := range s.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(p.Name)
		fmt.Fprintf(&b, `%s:%s`, name, num(p.MCSEMean))
	}
	b.WriteString(`},"ebfmi":[`)
	for i, e := range s.EBFMI {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(num(e))
	}
	warnings, _ := json.Marshal(append([]string{}, s.Warnings...))
	fmt.Fprintf(&b, `],"treedepth_hits":%d,"max_depth":%d,"grad_evals":%d,"warnings":%s}}`,
		s.TreeDepthHits, s.MaxDepth, s.GradEvals, warnings)
	return b.Bytes(), nil
}

func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteCSV writes one row per kept draw: chain, draw (both 1-based), the
// named quantities, then Stan's sampler columns.
func WriteCSV(w io.Writer, names []string, values [][][]float64, r *Result) error {
	var b bytes.Buffer
	b.WriteString("chain,draw")
	for _, n := range names {
		b.WriteString("," + n)
	}
	b.WriteString(",lp__,accept_stat__,stepsize__,treedepth__,n_leapfrog__,divergent__,energy__\n")
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for c, ch := range r.Chains {
		for i := range ch.Draws {
			b.WriteString(strconv.Itoa(c+1) + "," + strconv.Itoa(i+1))
			for _, v := range values[c][i] {
				b.WriteString("," + f(v))
			}
			div := "0"
			if ch.Divergent[i] {
				div = "1"
			}
			b.WriteString("," + f(ch.LP[i]) + "," + f(ch.AcceptStat[i]) + "," + f(ch.StepSize[i]) + "," +
				strconv.Itoa(ch.TreeDepth[i]) + "," + strconv.Itoa(ch.NLeapfrog[i]) + "," + div + "," + f(ch.Energy[i]) + "\n")
		}
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
		b.Reset()
	}
	_, err := w.Write(b.Bytes())
	return err
}
