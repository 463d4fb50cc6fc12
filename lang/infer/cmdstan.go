package infer

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/hmc"
)

// SamplerColumns are the sampler's per-draw columns, in CmdStan's order.
var SamplerColumns = []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"}

func samplerColumn(name string) int {
	for i, c := range SamplerColumns {
		if c == name {
			return i
		}
	}
	return -1
}

// samplerValue is column col of SamplerColumns at draw i of ch.
func samplerValue(ch *hmc.Chain, i, col int) float64 {
	switch col {
	case 0:
		return ch.LP[i]
	case 1:
		return ch.AcceptStat[i]
	case 2:
		return ch.StepSize[i]
	case 3:
		return float64(ch.TreeDepth[i])
	case 4:
		return float64(ch.NLeapfrog[i])
	case 5:
		if ch.Divergent[i] {
			return 1
		}
		return 0
	}
	return ch.Energy[i]
}

// WriteCmdStan writes chain c (0-based) as CmdStan writes one chain's output
// CSV, so that CmdStan's readers (cmdstanpy.from_csv, ArviZ's from_cmdstan,
// cmdstanr::read_cmdstan_csv) take it: the configuration as `#` comments,
// the header with the sampler's columns first and vector elements named
// w.1, w.2, ..., the adaptation block (step size and inverse metric), the
// kept draws on the constrained scale, and the timing. file is the name
// recorded in the header.
func (p *Posterior) WriteCmdStan(w io.Writer, c int, file string) error {
	if p.Approx != nil {
		return fmt.Errorf(`format: "cmdstan" writes a sampler's output files; a posterior from %s is saved as plain CSV (save(post, to: "draws.csv"))`, p.Approx.Method)
	}
	r, s := p.Result, p.Settings
	ch := r.Chains[c]
	metric := "diag_e"
	if s.Metric == hmc.Dense {
		metric = "dense_e"
	}
	delta := s.AdaptDelta
	if delta == 0 {
		delta = 0.8
	}
	// Without warm-up nothing is adapted (step size 1, identity metric):
	// the header says so as CmdStan's does when adaptation is off; the
	// step size and metric below are still the ones used, as Stan writes
	// them after a run without adaptation too.
	engaged := "1 (Default)"
	if r.Warmup == 0 {
		engaged = "0"
	}
	var b bytes.Buffer // the header, the adaptation block and the timing
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	// CmdStan's readers parse "key = value" lines; the version lines give
	// the version of the CSV layout written, which is CmdStan 2.33's.
	fmt.Fprintf(&b, `# stan_version_major = 2
# stan_version_minor = 33
# stan_version_patch = 0
# model = %s
# written_by = KML %s
# method = sample (Default)
#   sample
#     num_samples = %d
#     num_warmup = %d
#     save_warmup = 0 (Default)
#     thin = 1 (Default)
#     adapt
#       engaged = %s
#       delta = %s
#     algorithm = hmc (Default)
#       hmc
#         engine = nuts (Default)
#           nuts
#             max_depth = %d
#         metric = %s
# id = %d
# random
#   seed = %d
# output
#   file = %s
`, p.Model.Name, eval.Version, r.Draws, r.Warmup, engaged, f(delta), s.MaxDepth, metric, c+1, s.Seed, file)
	b.WriteString(strings.Join(SamplerColumns, ","))
	for _, n := range p.Names {
		b.WriteString("," + n)
	}
	b.WriteString("\n# Adaptation terminated\n")
	fmt.Fprintf(&b, "# Step size = %s\n", f(ch.Epsilon))
	dim := r.Dim
	if metric == "diag_e" {
		b.WriteString("# Diagonal elements of inverse mass matrix:\n# ")
		writeRow(&b, ch.InvMetric[:dim], f)
	} else {
		b.WriteString("# Elements of inverse mass matrix:\n")
		for i := 0; i < dim; i++ {
			b.WriteString("# ")
			writeRow(&b, ch.InvMetric[i*dim:(i+1)*dim], f)
		}
	}
	// The header goes first; the draws follow, formatted on every core.
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	if err := p.writeDraws(w, c); err != nil {
		return err
	}
	// KML times the run, not each phase of each chain: the total is the
	// run's wall time and the split is by iterations.
	total := r.Elapsed.Seconds()
	warm := total * float64(r.Warmup) / float64(max(r.Warmup+r.Draws, 1))
	fmt.Fprintf(&b, "# \n#  Elapsed Time: %s seconds (Warm-up)\n#                %s seconds (Sampling)\n#                %s seconds (Total)\n# \n",
		strconv.FormatFloat(warm, 'f', 3, 64), strconv.FormatFloat(total-warm, 'f', 3, 64), strconv.FormatFloat(total, 'f', 3, 64))
	_, err := w.Write(b.Bytes())
	return err
}

// drawBlockBytes is about how much of the draws' text one worker formats
// at a time: a round of GOMAXPROCS such blocks is what writeDraws holds.
const drawBlockBytes = 64 << 10

// writeDraws writes chain c's kept draws, one row each (the sampler's
// columns, then the constrained values), to w. The rows are formatted in
// blocks of about drawBlockBytes on GOMAXPROCS goroutines, a round of
// blocks at a time, and each round is handed to w in row order on the
// calling goroutine: the same bytes as formatting them in one pass (eight
// schools' four files took 7-9 ms on one core, before the whole run's 75
// ms), w sees them in order from one goroutine (it may be a file that
// stops at an interrupt, internal/sandbox), and nothing is held whole.
func (p *Posterior) writeDraws(w io.Writer, c int) error {
	ch, vals := p.Result.Chains[c], p.Values[c]
	n := len(ch.Draws)
	// About 20 bytes a number.
	per := max(1, drawBlockBytes/(20*(len(SamplerColumns)+len(p.Names))))
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+per-1)/per))
	bufs := make([]bytes.Buffer, workers)
	for r0 := 0; r0 < n; r0 += workers * per {
		blocks := min(workers, (n-r0+per-1)/per)
		var wg sync.WaitGroup
		for k := 1; k < blocks; k++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lo := r0 + k*per
				formatDraws(&bufs[k], ch, vals, lo, min(lo+per, n))
			}()
		}
		formatDraws(&bufs[0], ch, vals, r0, min(r0+per, n))
		wg.Wait()
		for k := range blocks {
			if _, err := w.Write(bufs[k].Bytes()); err != nil {
				return err
			}
			bufs[k].Reset()
		}
	}
	return nil
}

// formatDraws appends rows lo..hi−1 of chain ch (vals its constrained
// values) to b, formatted in place: a GARCH fit's 4000 rows of 210 numbers
// cost two strings a number as FormatFloat and a concatenation.
func formatDraws(b *bytes.Buffer, ch *hmc.Chain, vals [][]float64, lo, hi int) {
	var num [32]byte
	for i := lo; i < hi; i++ {
		for col := range SamplerColumns {
			if col > 0 {
				b.WriteByte(',')
			}
			b.Write(strconv.AppendFloat(num[:0], samplerValue(ch, i, col), 'g', -1, 64))
		}
		for _, v := range vals[i] {
			b.WriteByte(',')
			b.Write(strconv.AppendFloat(num[:0], v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
}

func writeRow(b *bytes.Buffer, xs []float64, f func(float64) string) {
	for j, x := range xs {
		if j > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f(x))
	}
	b.WriteByte('\n')
}
