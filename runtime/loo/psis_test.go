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

// TestLargest checks the tail selection against R's order(): a stable
// sort of all the values, whose last m indices are the tail in order, with
// many ties (also across the tail's edge), and the cutoff against the
// largest value left out.
func TestLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(36, 1))
	sc := &scratch{}
	for trial := 0; trial < 210; trial++ {
		// Short vectors select every value; long ones (S ≥ 1024, m ≤ S/8)
		// gather above a sampled threshold first. Values are drawn from
		// few levels (many ties) or continuous, and sometimes sorted (the
		// sample then sees a trend).
		S, m := 5+r.IntN(300), 0
		if trial%2 == 1 {
			S = 1024 + r.IntN(4000)
			m = 1 + r.IntN(S/8)
		} else {
			m = 1 + r.IntN(S-1)
		}
		v := make([]float64, S)
		levels := 1 + r.IntN(3000)
		for i := range v {
			v[i] = float64(r.IntN(levels))
			if trial%3 == 0 {
				v[i] = r.NormFloat64()
			}
		}
		if trial%7 == 0 {
			slices.Sort(v)
		}
		order := make([]int, S)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(v[a], v[b]) })
		top, below := largest(v, m, sc)
		if !slices.Equal(top, order[S-m:]) {
			t.Fatalf("S=%d m=%d: tail %v, R's order gives %v", S, m, top, order[S-m:])
		}
		if want := v[order[S-m-1]]; below != want {
			t.Fatalf("S=%d m=%d: cutoff %v, sorted %v", S, m, below, want)
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
