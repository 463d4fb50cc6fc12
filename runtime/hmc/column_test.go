package hmc

import (
	"math"
	"slices"
	"testing"

	"github.com/kml-lang/kml/runtime/rng"
	"github.com/kml-lang/kml/runtime/stats"
)

// columnSummary gives, to the bit, the summary Rhat, ESSBulk, ESSTail and
// MCSEMean give column by column: on autocorrelated draws, on draws with
// many ties (whole numbers, 0/1 indicators), and on the columns it hands to
// them (odd or unequal chains, NaN, ±Inf, −0, constant, too few draws),
// with one worker's storage reused across all of them as Summarize does.
func TestColumnSummaryIsTheFunctions(t *testing.T) {
	r := rng.New(30, rng.Stream(0x6373)) // "cs"
	var w columnScratch
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for trial := range 120 {
		m := []int{1, 2, 4, 3}[trial%4]
		n := []int{4, 6, 50, 101, 400, 5}[trial%6]
		chains := make([][]float64, m)
		for c := range chains {
			chains[c] = make([]float64, n)
			x := float64(c)
			for i := range chains[c] {
				x = 0.7*x + r.NormFloat64()
				v := x
				switch trial % 5 {
				case 1:
					v = math.Round(x) // ties
				case 2:
					v = 0
					if x > 0.3 {
						v = 1
					}
				case 3:
					v = 1e-3 * float64(r.IntN(4)) // ties at and near 0
				}
				chains[c][i] = v
			}
		}
		switch trial % 7 {
		case 1:
			chains[0][1] = math.NaN()
		case 2:
			chains[m-1][0] = math.Inf(1)
		case 3:
			chains[0][2] = math.Copysign(0, -1)
		case 4:
			if trial%3 == 0 {
				for c := range chains {
					for i := range chains[c] {
						chains[c][i] = 2.5
					}
				}
			}
		case 5:
			if m > 1 {
				chains[1] = chains[1][:n-1]
			}
		}
		if trial%7 == 5 && m > 1 {
			continue // chains of unequal length are not a Summarize input
		}
		fast := w.load(chains)
		got := columnSummary("x", chains, &w)
		if fast {
			// The ranks themselves, which R̂ may not show (it is the
			// larger of the bulk's and the tail's).
			split := splitChains(chains)
			med := stats.Quantile(pooled(chains), 0.5)
			folded := make([][]float64, len(split))
			for i, c := range split {
				for _, v := range c {
					folded[i] = append(folded[i], math.Abs(v-med))
				}
			}
			for _, z := range []struct {
				got  []float64
				want [][]float64
			}{{w.z, rankNormalize(split)}, {w.zf, rankNormalize(folded)}} {
				for i, x := range pooled(z.want) {
					if !same(z.got[i], x) {
						t.Fatalf("trial %d: rank-normalised draw %d is %v, rankNormalize gives %v", trial, i, z.got[i], x)
					}
				}
			}
		}
		want := columnSummaryPlain("x", chains)
		if !same(got.Mean, want.Mean) || !same(got.SD, want.SD) || !same(got.Q5, want.Q5) || !same(got.Q50, want.Q50) ||
			!same(got.Q95, want.Q95) || !same(got.Rhat, want.Rhat) || !same(got.ESSBulk, want.ESSBulk) ||
			!same(got.ESSTail, want.ESSTail) || !same(got.MCSEMean, want.MCSEMean) {
			t.Errorf("trial %d (%d chains × %d): %+v, the functions give %+v", trial, m, n, got, want)
		}
	}
}

// sortPairs orders as pdqsort through comparePairs does: by value, ties
// by position, on values of both signs, tiny and huge, with many ties.
func TestSortPairs(t *testing.T) {
	r := rng.New(30, rng.Stream(0x7370)) // "sp"
	var w columnScratch
	for trial := range 100 {
		n := 1 + r.IntN(3000)
		chains := [][]float64{make([]float64, 2*n)}
		for i := range chains[0] {
			x := r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
			switch trial % 4 {
			case 1:
				x = math.Round(r.NormFloat64() * 3)
				if x == 0 {
					x = 1e-300 // load refuses −0 (and so 0 might be either)
				}
			case 2:
				x = 1 + float64(r.IntN(5))*1e-15
			case 3:
				x = math.Abs(math.Round(r.NormFloat64()*100)) + 0.5 // low bytes all zero
			}
			chains[0][i] = x
		}
		if !w.load(chains) { // load sorts
			continue
		}
		want := make([]pair, len(chains[0]))
		for i, x := range chains[0] {
			want[i] = pair{x, i}
		}
		slices.SortFunc(want, comparePairs)
		for i := range want {
			if w.pairs[i] != want[i] {
				t.Fatalf("trial %d: pair %d is %v, want %v", trial, i, w.pairs[i], want[i])
			}
		}
	}
}
