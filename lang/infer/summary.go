package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/runtime/hmc"
)

// The posterior's presentation: the summary table print shows, the JSON
// object of the language reference, and the draws as CSV. The sampler
// returns data (hmc.Summary, hmc.Result); how a person reads it is here.

// Table renders the summary as a person reads it: one line per quantity
// with mean, MCSE, sd, quantiles, ESS and R̂, then the warnings.
func summaryTable(s *hmc.Summary) string {
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

// summaryJSON writes the object of LANGUAGE.md, parameters in model order,
// with the diagnostics in a "diagnostics" object and NaN as null.
func summaryJSON(s *hmc.Summary) []byte {
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
	return b.Bytes()
}

func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "null"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// writeCSV writes one row per kept draw: chain, draw (both 1-based), the
// named quantities, then Stan's sampler columns.
func writeCSV(w io.Writer, names []string, values [][][]float64, r *hmc.Result) error {
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
			// Handed on as it grows: w may be a file that stops at
			// an interrupt (internal/sandbox).
			if b.Len() >= 64<<10 {
				if _, err := w.Write(b.Bytes()); err != nil {
					return err
				}
				b.Reset()
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
