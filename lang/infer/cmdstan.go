package infer

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// drawBlockBytes is about how much of the draws' text one block holds at
// most; a chain's rows are cut into at least drawBlocksPerWorker blocks per
// worker so that both cores stay busy to the end of a small file.
const (
	drawBlockBytes      = 64 << 10
	drawBlocksPerWorker = 4
	drawBlockMinRows    = 16
)

// drawBlockRows is the number of rows a block holds for n rows of cols
// numbers (about 20 bytes each) on workers goroutines.
func drawBlockRows(n, cols, workers int) int {
	per := max(1, drawBlockBytes/(20*cols))
	if even := (n + drawBlocksPerWorker*workers - 1) / (drawBlocksPerWorker * workers); even < per {
		per = max(even, min(per, drawBlockMinRows))
	}
	return per
}

// writeDraws writes chain c's kept draws, one row each (the sampler's
// columns, then the constrained values), to w. The rows are cut into
// blocks (drawBlockRows) that GOMAXPROCS goroutines format as they come,
// each into one of a few buffers, while the calling goroutine hands the
// finished blocks to w in row order and returns their buffers: the same
// bytes as formatting them in one pass, no core waits for a round to end
// (eight schools' four files of 1000 rows each; the rounds of the previous
// scheme kept the save at about 0.7 cores), w sees the text in order from
// one goroutine (it may be a file that stops at an interrupt,
// internal/sandbox), and at most 2·GOMAXPROCS blocks are held.
func (p *Posterior) writeDraws(w io.Writer, c int) error {
	ch, vals := p.Result.Chains[c], p.Values[c]
	n := len(ch.Draws)
	workers := runtime.GOMAXPROCS(0)
	per := drawBlockRows(n, len(SamplerColumns)+len(p.Names), workers)
	blocks := (n + per - 1) / per
	if workers == 1 || blocks <= 1 {
		var b bytes.Buffer
		for lo := 0; lo < n; lo += per {
			formatDraws(&b, ch, vals, lo, min(lo+per, n))
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
		return nil
	}
	// A worker takes a free buffer, then the next block: blocks are taken
	// in order, so the block the writer waits for is being formatted or
	// can be (every earlier block's buffer is back).
	window := 2 * workers
	free := make(chan *bytes.Buffer, window)
	for range window {
		free <- new(bytes.Buffer)
	}
	ready := make([]chan *bytes.Buffer, blocks)
	for k := range ready {
		ready[k] = make(chan *bytes.Buffer, 1)
	}
	var next atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range min(workers, blocks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var b *bytes.Buffer
				select {
				case b = <-free:
				case <-stop:
					return
				}
				k := int(next.Add(1) - 1)
				if k >= blocks {
					return
				}
				lo := k * per
				formatDraws(b, ch, vals, lo, min(lo+per, n))
				ready[k] <- b
			}
		}()
	}
	var err error
	for k := range blocks {
		b := <-ready[k]
		_, err = w.Write(b.Bytes())
		if err != nil {
			break
		}
		b.Reset()
		free <- b
	}
	close(stop)
	wg.Wait()
	return err
}

// formatDraws appends rows lo..hi−1 of chain ch (vals its constrained
// values) to b, formatted in place: a GARCH fit's 4000 rows of 210 numbers
// cost two strings a number as FormatFloat and a concatenation. A sampler
// column that repeats its previous row's value (the step size after
// warm-up) repeats its text.
func formatDraws(b *bytes.Buffer, ch *hmc.Chain, vals [][]float64, lo, hi int) {
	var num [32]byte
	var last [8]struct {
		bits uint64
		n    int
		text [32]byte
	}
	for i := lo; i < hi; i++ {
		for col := range SamplerColumns {
			if col > 0 {
				b.WriteByte(',')
			}
			v := samplerValue(ch, i, col)
			l := &last[col]
			if bits := math.Float64bits(v); i == lo || bits != l.bits {
				l.bits = bits
				l.n = copy(l.text[:], appendG(num[:0], v))
			}
			b.Write(l.text[:l.n])
		}
		for _, v := range vals[i] {
			b.WriteByte(',')
			b.Write(appendG(num[:0], v))
		}
		b.WriteByte('\n')
	}
}

// appendG is strconv.AppendFloat(dst, v, 'g', -1, 64), with whole numbers
// of magnitude under 10⁶ (tree depths, leapfrog counts, divergences, an
// acceptance of 1) written as integers: the same bytes, since the shortest
// 'g' form of such a number has no exponent and no fraction (−0 keeps its
// sign through AppendFloat).
func appendG(dst []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 && (v != 0 || !math.Signbit(v)) {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, 64)
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
