package hmc

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/kml-lang/kml/runtime/rng"
)

// Summarize, which summarises the columns on every core, gives each column
// the summary it has alone, whatever the blocks it cuts the columns into
// (a few columns on several workers are cut finer than many).
func TestSummarizeColumnsInParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rng.New(30, rng.Stream(0x7375)) // "su"
	for _, cols := range []int{37, 10, 3} {
		for _, procs := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(procs)
			summarizeInParallel(t, r, cols)
		}
	}
}

func summarizeInParallel(t *testing.T, r *rand.Rand, cols int) {
	const chains, draws = 4, 100
	values := make([][][]float64, chains)
	names := make([]string, cols)
	for k := range names {
		names[k] = string(rune('a'+k%26)) + string(rune('0'+k/26))
	}
	for c := range values {
		values[c] = make([][]float64, draws)
		for i := range values[c] {
			row := make([]float64, cols)
			for k := range row {
				row[k] = float64(k) + r.NormFloat64()*float64(1+k%5)
			}
			values[c][i] = row
		}
	}
	s := Summarize(names, values, &Result{Warmup: 10, Draws: draws}, 10)
	if len(s.Params) != cols {
		t.Fatalf("%d summaries for %d columns", len(s.Params), cols)
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for k, p := range s.Params {
		w := summarizeColumn(names[k], values, k)
		if p.Name != w.Name || !same(p.Mean, w.Mean) || !same(p.SD, w.SD) || !same(p.Q50, w.Q50) ||
			!same(p.Rhat, w.Rhat) || !same(p.ESSBulk, w.ESSBulk) || !same(p.ESSTail, w.ESSTail) || !same(p.MCSEMean, w.MCSEMean) {
			t.Errorf("%d columns, column %d: %+v in parallel, %+v alone", cols, k, p, w)
		}
		if math.Abs(p.Mean-float64(k)) > 1 {
			t.Errorf("%d columns, column %d: mean %v, want about %d", cols, k, p.Mean, k)
		}
	}
}

// BenchmarkSummarizeColumn is the cost of one column's summary over 4
// chains of 1000 draws (a GARCH fit has 203 columns).
func BenchmarkSummarizeColumn(b *testing.B) {
	r := rng.New(30, rng.Stream(0x7362)) // "sb"
	values := make([][][]float64, 4)
	for c := range values {
		values[c] = make([][]float64, 1000)
		x := 0.0
		for i := range values[c] {
			x = 0.5*x + r.NormFloat64()
			values[c][i] = []float64{x}
		}
	}
	for b.Loop() {
		summarizeColumn("x", values, 0)
	}
}

// sortByValue orders as sort.SliceStable does, ties (and signed zeros) by
// position, NaN included.
func TestSortByValueIsStable(t *testing.T) {
	r := rng.New(30, rng.Stream(0x7376)) // "sv"
	for trial := range 200 {
		n := 1 + r.IntN(300)
		all := make([]float64, n)
		for i := range all {
			all[i] = float64(r.IntN(7)) // many ties
			switch r.IntN(20) {
			case 0:
				all[i] = math.Copysign(0, -1)
			case 1:
				all[i] = r.NormFloat64()
			case 2:
				if trial%4 == 0 {
					all[i] = math.NaN()
				}
			}
		}
		got, want := make([]int, n), make([]int, n)
		for i := range got {
			got[i], want[i] = i, i
		}
		sortByValue(got, all)
		sort.SliceStable(want, func(a, b int) bool { return all[want[a]] < all[want[b]] })
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d: order %v, stable sort %v", trial, got, want)
			}
		}
	}
}

// The divergence warning advises a higher adapt_delta than the run used,
// and only reparameterising once it is 0.99 or more.
func TestDivergenceAdviceRaisesTheTargetUsed(t *testing.T) {
	values := [][][]float64{{{1}, {2}, {3}, {4}, {5}}}
	cases := []struct {
		delta      float64
		want, deny string
	}{
		{0.8, "raise adapt_delta from 0.8 (e.g. 0.95)", ""},
		{0.95, "raise adapt_delta from 0.95 (e.g. 0.99)", "e.g. 0.95"},
		{0.99, "adapt_delta is already 0.99", "raise adapt_delta"},
		{0.999, "adapt_delta is already 0.999", "raise adapt_delta"},
	}
	for _, c := range cases {
		r := &Result{Warmup: 10, Draws: 5, AdaptDelta: c.delta,
			Chains: []*Chain{{Divergent: []bool{true, false, false, false, false}}}}
		s := Summarize([]string{"x"}, values, r, 10)
		found := ""
		for _, w := range s.Warnings {
			if strings.Contains(w, "diverged") {
				found = w
			}
		}
		if !strings.Contains(found, c.want) || c.deny != "" && strings.Contains(found, c.deny) {
			t.Errorf("adapt_delta %g: warning %q, want %q", c.delta, found, c.want)
		}
	}
}

// BenchmarkSummarize200 is the summary of a 200-column posterior, 4
// chains of 1000 draws (AR(1) columns with coefficients from 0 to 0.9,
// as a fit's parameters and derived quantities mix), on every core: the
// whole of `summary` after a fit like GARCH's. Issue 42 aims at 0.05 s.
func BenchmarkSummarize200(b *testing.B) { benchSummarize(b, 200) }

// BenchmarkSummarize10 is the same for eight schools' 10 columns, which
// the whole kml run waits for after its chains.
func BenchmarkSummarize10(b *testing.B) { benchSummarize(b, 10) }

func benchSummarize(b *testing.B, cols int) {
	r := rng.New(30, rng.Stream(0x7332)) // "s2"
	const chains, draws = 4, 1000
	values := make([][][]float64, chains)
	names := make([]string, cols)
	for k := range names {
		names[k] = "x" + string(rune('0'+k%10))
	}
	for c := range values {
		values[c] = make([][]float64, draws)
		x := make([]float64, cols)
		for i := range values[c] {
			row := make([]float64, cols)
			for k := range row {
				rho := 0.9 * float64(k) / float64(cols)
				x[k] = rho*x[k] + r.NormFloat64()
				row[k] = x[k] + float64(k)
			}
			values[c][i] = row
		}
	}
	res := &Result{Warmup: draws, Draws: draws}
	for b.Loop() {
		Summarize(names, values, res, 10)
	}
}
