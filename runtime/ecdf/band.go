// Package ecdf is the graphical uniformity test of Säilynoja, Bürkner and
// Vehtari (2022, "Graphical test for discrete uniformity and its
// applications in goodness-of-fit evaluation and multiple sample
// comparison", Statistics and Computing 32:32) for ranks: n values each
// uniform on {0, ..., L} under the null, as simulation-based calibration
// makes them. It gives the simultaneous 1−α band for the ranks' empirical
// CDF and the test's p-value, both from one simulation of the null (the
// paper's simulation method), so that the band and the p-value agree: a
// sample leaves the band exactly when its p-value is at most about α.
//
// The ECDF is evaluated at z_i = i/(L+1), i = 1..L, where its count
// K_i = #{ranks < i} is Binomial(n, z_i) under the null. Each point's
// two-sided tail probability is s_i = min(1, 2 min(P(K ≤ K_i),
// P(K ≥ K_i))); the statistic is S = min_i s_i. The band is the set of
// counts with s_i ≥ γ, γ the α-quantile of S under the null.
package ecdf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Band is the simultaneous band for n ranks on {0, ..., L}.
type Band struct {
	N, L  int
	Alpha float64
	// Sims is the number of null samples the band and the p-values come
	// from.
	Sims int
	// Gamma is the adjusted pointwise level γ.
	Gamma float64
	// Z are the evaluation points i/(L+1); Lower and Upper bound the count
	// K_i of ranks below i (divide by N for the ECDF).
	Z            []float64
	Lower, Upper []int
	// cdf[i][k] is P(Binomial(N, Z[i]) ≤ k).
	cdf  [][]float64
	null []float64 // S of each null sample, sorted
}

// MaxPoints bounds L so the table of binomial CDFs (L × (N+1)) stays
// small.
const MaxPoints = 100_000

// NewBand simulates sims null samples with r and returns the 1−alpha band.
func NewBand(n, L int, alpha float64, sims int, r *rand.Rand) (*Band, error) {
	if n < 1 || L < 1 || L > MaxPoints || sims < 10 || !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("ecdf: band needs n ≥ 1, 1 ≤ L ≤ %d, sims ≥ 10 and 0 < alpha < 1 (got n %d, L %d, sims %d, alpha %g)", MaxPoints, n, L, sims, alpha)
	}
	b := &Band{N: n, L: L, Alpha: alpha, Sims: sims}
	b.Z = make([]float64, L)
	b.cdf = make([][]float64, L)
	for i := range L {
		z := float64(i+1) / float64(L+1)
		b.Z[i] = z
		bin := distuv.Binomial{N: float64(n), P: z}
		row := make([]float64, n+1)
		for k := range n + 1 {
			row[k] = bin.CDF(float64(k))
		}
		row[n] = 1
		b.cdf[i] = row
	}
	b.null = make([]float64, sims)
	ranks := make([]int, n)
	for s := range sims {
		for j := range ranks {
			ranks[j] = r.IntN(L + 1)
		}
		b.null[s] = b.Stat(ranks)
	}
	sort.Float64s(b.null)
	// γ: at most ⌊α·sims⌋ null samples have S < γ.
	b.Gamma = b.null[int(math.Floor(alpha*float64(sims)))]
	b.Lower, b.Upper = make([]int, L), make([]int, L)
	for i := range L {
		lo, hi := -1, -1
		for k := range n + 1 {
			if b.point(i, k) >= b.Gamma {
				if lo < 0 {
					lo = k
				}
				hi = k
			}
		}
		b.Lower[i], b.Upper[i] = lo, hi
	}
	return b, nil
}

// point is s_i for count k at point i.
func (b *Band) point(i, k int) float64 {
	lower := b.cdf[i][k] // P(K ≤ k)
	upper := 1.0         // P(K ≥ k)
	if k > 0 {
		upper = 1 - b.cdf[i][k-1]
	}
	return math.Min(1, 2*math.Min(lower, upper))
}

// Counts are K_i = #{ranks < i} for i = 1..L.
func (b *Band) Counts(ranks []int) []int {
	hist := make([]int, b.L+1)
	for _, r := range ranks {
		hist[min(max(r, 0), b.L)]++
	}
	out := make([]int, b.L)
	c := 0
	for i := range b.L {
		c += hist[i]
		out[i] = c
	}
	return out
}

// Stat is S = min_i s_i for ranks (n of them, each in 0..L).
func (b *Band) Stat(ranks []int) float64 {
	s := 1.0
	for i, k := range b.Counts(ranks) {
		s = math.Min(s, b.point(i, k))
	}
	return s
}

// PValue is the test's p-value for ranks: the share of null samples with
// S at most the ranks' S, counting the ranks themselves, (1 + #{S₀ ≤ S}) /
// (sims + 1).
func (b *Band) PValue(ranks []int) float64 {
	s := b.Stat(ranks)
	k := sort.Search(len(b.null), func(j int) bool { return b.null[j] > s })
	return float64(1+k) / float64(len(b.null)+1)
}

// Inside reports whether the ECDF of ranks stays within the band at every
// point.
func (b *Band) Inside(ranks []int) bool {
	for i, k := range b.Counts(ranks) {
		if k < b.Lower[i] || k > b.Upper[i] {
			return false
		}
	}
	return true
}
