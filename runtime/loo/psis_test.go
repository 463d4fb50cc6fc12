package loo

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelectLargest checks the quickselect against a full sort, with ties.
func TestSelectLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	for trial := 0; trial < 200; trial++ {
		S := 5 + r.IntN(300)
		v := make([]float64, S)
		for i := range v {
			v[i] = float64(r.IntN(40)) // many ties
		}
		m := 1 + r.IntN(S-1)
		idx := make([]int, S)
		for i := range idx {
			idx[i] = i
		}
		selectLargest(idx, v, m)
		sorted := slices.Clone(v)
		slices.Sort(sorted)
		low := math.Inf(-1)
		for _, i := range idx[:S-m] {
			low = math.Max(low, v[i])
		}
		for _, i := range idx[S-m:] {
			if v[i] < low {
				t.Fatalf("S=%d m=%d: tail value %v below a kept value %v", S, m, v[i], low)
			}
		}
		if low != sorted[S-m-1] {
			t.Fatalf("S=%d m=%d: cutoff %v, sorted %v", S, m, low, sorted[S-m-1])
		}
	}
}

// TestGPDFitRecoversShape fits the exact quantiles of known generalized
// Pareto distributions: the estimate must be near the true shape (the
// prior pulls it towards 0.5 by 10/(n+10)).
func TestGPDFitRecoversShape(t *testing.T) {
	for _, k := range []float64{-0.2, 0.2, 0.5, 0.9} {
		n := 2000
		x := make([]float64, n)
		for i := range x {
			x[i] = gpdQuantile((float64(i)+0.5)/float64(n), k, 1.5)
		}
		kh, sh := GPDFit(x)
		if math.Abs(kh-k) > 0.05 || math.Abs(sh-1.5) > 0.1 {
			t.Errorf("k=%v σ=1.5: fitted k=%v σ=%v", k, kh, sh)
		}
	}
}

// TestLogWeights: the exported weights are normalised and give Compute's
// elpd_loo_i and k̂.
func TestLogWeights(t *testing.T) {
	ll := cases()["heavy1000"]
	l, err := Compute(context.Background(), ll, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range ll {
		lw, k := LogWeights(x, 1)
		if k != l.K[i] {
			t.Fatalf("point %d: k̂ %v, Compute's %v", i+1, k, l.K[i])
		}
		sum, elpd := 0.0, make([]float64, len(x))
		for s := range lw {
			sum += math.Exp(lw[s])
			elpd[s] = lw[s] + x[s]
		}
		if math.Abs(sum-1) > 1e-12 || math.Abs(logSumExp(elpd)-l.ElpdI[i]) > 1e-12 {
			t.Fatalf("point %d: weights sum to %v, elpd %v vs %v", i+1, sum, logSumExp(elpd), l.ElpdI[i])
		}
	}
}

// TestComputeStops returns the context's error.
func TestComputeStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Compute(ctx, cases()["good1000"], 1, 2, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// TestThresholds are the formulas of Vehtari et al. (2024).
func TestThresholds(t *testing.T) {
	if got := KThreshold(100); got != 0.5 {
		t.Errorf("threshold at S=100: %v, want 1 − 1/2", got)
	}
	if got := KThreshold(4000); got != 0.7 {
		t.Errorf("threshold at S=4000: %v, want the cap 0.7", got)
	}
	if TailLength(4000, 1) != 190 || TailLength(100, 1) != 20 {
		t.Errorf("tail lengths %d, %d; want ⌈3√4000⌉ = 190 and 100/5 = 20", TailLength(4000, 1), TailLength(100, 1))
	}
}

// TestComputeRefusesNonFinite names the observation and the draw.
func TestComputeRefusesNonFinite(t *testing.T) {
	for _, bad := range []float64{math.Inf(-1), math.NaN()} {
		ll := [][]float64{{-1, -2, -1.5}, {-1, bad, -2}}
		_, err := Compute(context.Background(), ll, 1, 1, nil)
		if err == nil || err.Error() != "observation 2: the log likelihood at draw 2 is "+fmt.Sprint(bad) {
			t.Errorf("%v: got %v", bad, err)
		}
	}
}

// TestSortStable: sortStable orders a tail as slices.SortStableFunc does,
// ties in their order as selected, on values with many ties (NUTS repeats
// a draw when it rejects a proposal, so equal ratios are common).
func TestSortStable(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 9))
	sc := &scratch{}
	for range 200 {
		n := 1 + r.IntN(300)
		lw := make([]float64, 1000)
		for i := range lw {
			lw[i] = float64(r.IntN(20))
		}
		top := r.Perm(len(lw))[:n]
		want := slices.Clone(top)
		slices.SortStableFunc(want, func(a, b int) int { return cmp.Compare(lw[a], lw[b]) })
		sortStable(top, lw, sc)
		if !slices.Equal(top, want) {
			t.Fatalf("n %d: %v, want %v", n, top, want)
		}
	}
}
