package infer

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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
// counts that make many small blocks, blocks of the full size, a partial
// last block, or one block, on 1, 2 and 3 workers: a block out of order, a
// row lost or written twice, or a block's buffer not cleared fails it.
func TestWriteDrawsBlocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(42, 1))
	names := []string{"a", "b.1", "b.2", "c"}
	full := drawBlockBytes / (20 * (len(SamplerColumns) + len(names)))
	for _, n := range []int{1, 15, 16, 17, 100, 1000, full - 1, 3 * full, 12*full + 5} {
		ch := &hmc.Chain{}
		vals := make([][]float64, n)
		for i := range n {
			ch.Draws = append(ch.Draws, []float64{rng.NormFloat64()})
			ch.LP = append(ch.LP, -10*rng.Float64())
			ch.AcceptStat = append(ch.AcceptStat, rng.Float64())
			ch.StepSize = append(ch.StepSize, 0.3+float64(i/50)) // runs of repeats
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
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			per := drawBlockRows(n, len(SamplerColumns)+len(names), procs)
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

// failingWriter fails its write number at (counting from 1).
type failingWriter struct{ writes, at int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	if w.writes == w.at {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

// A write that fails stops writeDraws with its error at once, with no
// worker left behind blocked (the test would hang or leak goroutines).
func TestWriteDrawsStopsAtError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(2)
	n := 5000
	ch := &hmc.Chain{}
	vals := make([][]float64, n)
	for i := range n {
		ch.Draws = append(ch.Draws, []float64{float64(i)})
		ch.LP = append(ch.LP, float64(i))
		ch.AcceptStat = append(ch.AcceptStat, 1)
		ch.StepSize = append(ch.StepSize, 0.5)
		ch.TreeDepth = append(ch.TreeDepth, 3)
		ch.NLeapfrog = append(ch.NLeapfrog, 7)
		ch.Divergent = append(ch.Divergent, false)
		ch.Energy = append(ch.Energy, float64(i))
		vals[i] = []float64{float64(i) / 7}
	}
	p := &Posterior{Names: []string{"x"}, Values: [][][]float64{vals}, Result: &hmc.Result{Chains: []*hmc.Chain{ch}}}
	before := runtime.NumGoroutine()
	for _, at := range []int{1, 2, 5} {
		w := &failingWriter{at: at}
		if err := p.writeDraws(w, 0); err == nil || err.Error() != "disk full" {
			t.Errorf("failing at write %d: error %v", at, err)
		}
		if w.writes != at {
			t.Errorf("failing at write %d: %d writes", at, w.writes)
		}
	}
	// A worker that has called wg.Done may not have exited yet when
	// writeDraws returns, so the count is given a moment to come down; a
	// worker that leaked would stay.
	after := runtime.NumGoroutine()
	for wait := 0; after > before && wait < 200; wait++ {
		time.Sleep(5 * time.Millisecond)
		after = runtime.NumGoroutine()
	}
	if after > before {
		t.Errorf("%d goroutines after the failed writes, %d before", after, before)
	}
}

// appendG gives strconv's shortest 'g' bytes for whole numbers near and
// across its integer range (±10⁶, ±0), for halves, and for random values
// of every magnitude.
func TestAppendGSameBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 2))
	check := func(v float64) {
		want := strconv.AppendFloat(nil, v, 'g', -1, 64)
		if got := appendG(nil, v); !bytes.Equal(got, want) {
			t.Fatalf("appendG(%v) = %q, want %q", v, got, want)
		}
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 7, 10, 100000, 999999, 1e6, -1e6, 1e6 - 0.5,
		123456, 1234567, 1e21, 1e-5, 0.5, -0.5, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 5e-324} {
		check(v)
		check(math.Nextafter(v, 0))
		check(math.Nextafter(v, math.Inf(1)))
	}
	for k := 0; k < 30000; k++ {
		check(float64(r.IntN(4000000) - 2000000))
		check(float64(r.IntN(4000)-2000) / 2)
		check(r.NormFloat64() * math.Exp(20*r.NormFloat64()))
	}
}
