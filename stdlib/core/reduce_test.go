package core

import (
	"math"
	"math/big"
	"testing"

	"github.com/kml-lang/kml/runtime/stats"
)

// fuzzValues are the numbers the fuzzer's bytes pick from: NaN, infinities,
// signed zeros, ties, subnormals and values whose sum overflows.
var fuzzValues = [16]float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, 2, 3,
	-1, 1e308, -1e308, 5e-324, 0.5, 7, 1e-10, 42}

func reducerFunc(t testing.TB, spec string) func([]float64) (float64, string) {
	for _, r := range reducers {
		if r.spec == spec {
			return r.f
		}
	}
	t.Fatalf("no reducer %s", spec)
	return nil
}

// refSorted is xs sorted by insertion, and whether xs holds a NaN.
func refSorted(xs []float64) ([]float64, bool) {
	var s []float64
	for _, x := range xs {
		if math.IsNaN(x) {
			return nil, true
		}
		i := len(s)
		s = append(s, x)
		for i > 0 && s[i-1] > x {
			s[i] = s[i-1]
			i--
		}
		s[i] = x
	}
	return s, false
}

// refQuantile is R's type 7 quantile of sorted s, written out.
func refQuantile(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := math.Floor(h)
	if int(lo) == len(s)-1 {
		return s[len(s)-1]
	}
	return s[int(lo)] + (h-lo)*(s[int(lo)+1]-s[int(lo)])
}

// refMean is the exact mean rounded once, with IEEE rules for infinities;
// refSum the exact sum.
func refMean(xs []float64) float64 { return refSum(xs, int64(len(xs))) }

func refSum(xs []float64, n int64) float64 {
	pos, neg := false, false
	sum := new(big.Float).SetPrec(4096)
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			return math.NaN()
		case math.IsInf(x, 1):
			pos = true
		case math.IsInf(x, -1):
			neg = true
		default:
			sum.Add(sum, new(big.Float).SetFloat64(x))
		}
	}
	switch {
	case pos && neg:
		return math.NaN()
	case pos:
		return math.Inf(1)
	case neg:
		return math.Inf(-1)
	}
	m, _ := sum.Quo(sum, new(big.Float).SetInt64(n)).Float64()
	return m
}

func same(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsNaN(got) {
		return math.IsNaN(want) && math.IsNaN(got)
	}
	if math.IsInf(want, 0) || math.IsInf(got, 0) {
		return got == want
	}
	return math.Abs(got-want) <= tol
}

// FuzzReductions checks median, quantile, min, max, sum and mean against a
// reference that sorts by hand: a NaN anywhere gives NaN, wherever it sits,
// and the mean of finite values is finite when it is representable.
func FuzzReductions(f *testing.F) {
	f.Add([]byte{5, 6, 0, 7}, byte(128))   // median([1, 2, NaN, 3])
	f.Add([]byte{0, 5, 6}, byte(25))       // NaN first
	f.Add([]byte{13, 0, 5}, byte(230))     // quantile([7, NaN, 1], 0.9)
	f.Add([]byte{9, 9}, byte(0))           // mean([1e308, 1e308])
	f.Add([]byte{9, 9, 10, 11}, byte(255)) // overflow, cancellation, subnormal
	f.Add([]byte{1, 2, 3}, byte(77))       // Inf and −Inf
	f.Add([]byte{4, 3, 4}, byte(128))      // signed zeros
	f.Add([]byte{7}, byte(3))
	median := reducerFunc(f, "median(x)")
	mean := reducerFunc(f, "mean(x)")
	sum := reducerFunc(f, "sum(x)")
	lo, hi := reducerFunc(f, "min(x)"), reducerFunc(f, "max(x)")
	f.Fuzz(func(t *testing.T, data []byte, pb byte) {
		if len(data) == 0 || len(data) > 64 {
			return
		}
		xs := make([]float64, len(data))
		for i, b := range data {
			xs[i] = fuzzValues[b%16]
		}
		p := float64(pb) / 255
		s, hasNaN := refSorted(xs)
		scale := 0.0
		for _, x := range s {
			if !math.IsInf(x, 0) {
				scale = math.Max(scale, math.Abs(x))
			}
		}
		tol := 1e-12 * scale
		check := func(what string, got, want float64) {
			if hasNaN {
				want = math.NaN()
			}
			if !same(got, want, tol) {
				t.Errorf("%s of %v = %v, want %v", what, xs, got, want)
			}
		}
		get := func(f func([]float64) (float64, string)) float64 {
			v, msg := f(append([]float64(nil), xs...))
			if msg != "" {
				t.Fatalf("%v: %s", xs, msg)
			}
			return v
		}
		var wantMed, wantQ, wantMin, wantMax float64
		if !hasNaN {
			wantMed, wantQ, wantMin, wantMax = refQuantile(s, 0.5), refQuantile(s, p), s[0], s[len(s)-1]
		}
		check("median", get(median), wantMed)
		check("quantile", stats.SortedQuantile(sorted(xs), p), wantQ)
		check("quantile", stats.Quantile(xs, p), wantQ)
		check("min", get(lo), wantMin)
		check("max", get(hi), wantMax)
		check("mean", get(mean), refMean(xs))
		check("sum", get(sum), refSum(xs, 1))
	})
}
