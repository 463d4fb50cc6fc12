package stats

import (
	"fmt"
	"math"
	"sort"
)

// WilcoxonResult is a Wilcoxon signed-rank test of paired differences.
type WilcoxonResult struct {
	// W is the sum of the ranks of |d| over the positive differences.
	W float64
	// P is the two-sided p-value.
	P float64
	// N is the number of non-zero differences (zeros are dropped,
	// Wilcoxon's own convention).
	N int
	// Exact reports whether P is the exact permutation p-value (N ≤
	// ExactMax) rather than the normal approximation with tie correction.
	Exact bool
}

// ExactMax is the largest number of non-zero differences whose p-value is
// computed exactly, by enumerating all 2^N sign assignments of the ranks.
const ExactMax = 20

// Wilcoxon tests whether paired differences d are symmetric about zero:
// ranks of |d| (midranks for ties), W = Σ ranks of positive d, two-sided
// p = P(|W − E W| ≥ |w − E W|) under random signs. Up to ExactMax non-zero
// differences it counts every sign assignment (exact even with ties);
// above, the normal approximation with the tie-corrected variance
// N(N+1)(2N+1)/24 − Σ(t³−t)/48, without continuity correction.
func Wilcoxon(d []float64) (WilcoxonResult, error) {
	var nz []float64
	for _, v := range d {
		if math.IsNaN(v) {
			return WilcoxonResult{}, fmt.Errorf("a difference is NaN")
		}
		if v != 0 {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	if n == 0 {
		return WilcoxonResult{}, fmt.Errorf("every difference is zero")
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(nz[idx[a]]) < math.Abs(nz[idx[b]]) })
	rank := make([]float64, n)
	ties := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			rank[idx[k]] = r
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	w := 0.0
	for i, v := range nz {
		if v > 0 {
			w += rank[i]
		}
	}
	mean := float64(n*(n+1)) / 4
	dev := math.Abs(w - mean)
	res := WilcoxonResult{W: w, N: n, Exact: n <= ExactMax}
	if res.Exact {
		// Ranks are multiples of ½: count in half-units to compare exactly.
		h := make([]int, n)
		for i, r := range rank {
			h[i] = int(math.Round(2 * r))
		}
		obs := int(math.Round(2 * dev))
		m2 := n * (n + 1) / 2 // 2·E W
		count := 0
		for mask := 0; mask < 1<<n; mask++ {
			s := 0
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					s += h[i]
				}
			}
			if dv := s - m2; dv >= obs || -dv >= obs {
				count++
			}
		}
		res.P = float64(count) / float64(int(1)<<n)
		return res, nil
	}
	v := float64(n*(n+1)*(2*n+1))/24 - ties/48
	res.P = math.Erfc(dev / math.Sqrt(v) / math.Sqrt2)
	return res, nil
}
