package infer

import (
	"bytes"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/kml-lang/kml/runtime/hmc"
)

// countingWriter keeps what it is given and counts the writes.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// TestWriteDrawsBlocks checks the draws formatted in blocks on several
// goroutines against the rows formatted one number at a time, for row
// counts that fill whole rounds, end in a partial block, or fit in one
// block, on 1 and 3 workers: a block out of order, a row lost or written
// twice, or a block's buffer not cleared fails it.
func TestWriteDrawsBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(42, 1))
	names := []string{"a", "b.1", "b.2", "c"}
	per := drawBlockBytes / (20 * (len(SamplerColumns) + len(names)))
	for _, n := range []int{1, per - 1, per, 3 * per, 7*per + 5} {
		ch := &hmc.Chain{}
		vals := make([][]float64, n)
		for i := range n {
			ch.Draws = append(ch.Draws, []float64{rng.NormFloat64()})
			ch.LP = append(ch.LP, -10*rng.Float64())
			ch.AcceptStat = append(ch.AcceptStat, rng.Float64())
			ch.StepSize = append(ch.StepSize, 0.3)
			ch.TreeDepth = append(ch.TreeDepth, rng.IntN(6))
			ch.NLeapfrog = append(ch.NLeapfrog, rng.IntN(60))
			ch.Divergent = append(ch.Divergent, rng.IntN(50) == 0)
			ch.Energy = append(ch.Energy, 5*rng.NormFloat64())
			for range names {
				vals[i] = append(vals[i], math.Exp(3*rng.NormFloat64()))
			}
		}
		var want strings.Builder
		for i := range n {
			row := []string{}
			div := "0"
			if ch.Divergent[i] {
				div = "1"
			}
			for _, x := range []float64{ch.LP[i], ch.AcceptStat[i], ch.StepSize[i]} {
				row = append(row, strconv.FormatFloat(x, 'g', -1, 64))
			}
			row = append(row, strconv.Itoa(ch.TreeDepth[i]), strconv.Itoa(ch.NLeapfrog[i]), div, strconv.FormatFloat(ch.Energy[i], 'g', -1, 64))
			for _, v := range vals[i] {
				row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
			}
			want.WriteString(strings.Join(row, ",") + "\n")
		}
		p := &Posterior{Names: names, Values: [][][]float64{vals}, Result: &hmc.Result{Chains: []*hmc.Chain{ch}}}
		for _, procs := range []int{1, 3} {
			runtime.GOMAXPROCS(procs)
			var w countingWriter
			if err := p.writeDraws(&w, 0); err != nil {
				t.Fatal(err)
			}
			if w.String() != want.String() {
				t.Errorf("%d rows on %d workers: the text differs from the rows formatted one by one", n, procs)
			}
			if blocks := (n + per - 1) / per; w.writes != blocks {
				t.Errorf("%d rows on %d workers: %d writes, want one per block (%d)", n, procs, w.writes, blocks)
			}
		}
	}
}
