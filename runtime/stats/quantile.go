package stats

import (
	"math"
	"sort"
)

// Quantile is the p-quantile of x by linear interpolation between order
// statistics (R's type 7, numpy's default). x is not modified; an empty x,
// or one holding a NaN, gives NaN (as R's quantile with na.rm = FALSE and
// numpy's quantile do), wherever the NaN sits.
func Quantile(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return SortedQuantile(s, p)
}

// SortedQuantile is Quantile on data already sorted ascending (by
// sort.Float64s or slices.Sort, which put NaNs first).
func SortedQuantile(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 || math.IsNaN(s[0]) || math.IsNaN(s[n-1]) {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return s[n-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// NormalQuantile is the p-quantile of the standard normal distribution,
// √2 erf⁻¹(2p − 1).
func NormalQuantile(p float64) float64 { return math.Sqrt2 * math.Erfinv(2*p-1) }
