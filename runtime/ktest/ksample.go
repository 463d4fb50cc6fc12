package ktest

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// ksampleStat is the between-group discrepancy of c groups of the pooled
// rows, group[a] the group of row a, sizes their sizes:
//
//	T = Σ_c (n_c/n) ‖μ̂_c − μ̂‖² = Σ_c S_cc/(n·n_c) − S/n²,
//
// μ̂_c the empirical kernel mean embedding of group c, μ̂ that of all n
// rows, S_cc = Σ_{a,b ∈ c} K_ab and S = Σ_ab K_ab: the kernel analogue of
// one-way ANOVA's between-group sum of squares (the V-statistic, as
// MMD²_b). With two groups it is (n₁n₂/n²)·MMD²_b.
func ksampleStat(g []float64, n int, group []int, sizes []int, within []float64) float64 {
	clear(within)
	var tot float64
	for a := 0; a < n; a++ {
		row := g[a*n : (a+1)*n]
		ga := group[a]
		var s, w float64
		for b, v := range row {
			s += v
			if group[b] == ga {
				w += v
			}
		}
		tot += s
		within[ga] += w
	}
	t := -tot / float64(n*n)
	for c, w := range within {
		t += w / (float64(n) * float64(sizes[c]))
	}
	return t
}

// KSampleTest tests that c ≥ 2 samples (the rows of xs[0], xs[1], …) come
// from one distribution, by the between-group discrepancy ksampleStat with
// kernel k and a permutation null: the pooled rows are relabelled
// Settings.Permutations times (permutation b puts rows perm_b[0..n₁−1] in
// the first group, the next n₂ in the second, …; with two samples these
// are MMDTest's relabellings, and the p-value is MMDTest's with the biased
// estimator), p = (1 + #{T_b ≥ T})/(1 + B), exact. A cancelled ctx stops
// it and it returns ctx.Err().
func KSampleTest(ctx context.Context, k kernels.Kernel, xs []*mat.Dense, s Settings) (Result, error) {
	s = s.withDefaults(Biased)
	if len(xs) < 2 {
		return Result{}, fmt.Errorf("the k-sample test needs at least 2 samples, got %d", len(xs))
	}
	_, d := xs[0].Dims()
	sizes := make([]int, len(xs))
	n := 0
	for c, x := range xs {
		r, dc := x.Dims()
		if dc != d {
			return Result{}, fmt.Errorf("sample %d has %d columns, sample 1 has %d", c+1, dc, d)
		}
		if r == 0 {
			return Result{}, fmt.Errorf("sample %d is empty", c+1)
		}
		sizes[c] = r
		n += r
	}
	z := mat.NewDense(n, d, nil)
	group := make([]int, n)
	at := 0
	for c, x := range xs {
		z.Slice(at, at+sizes[c], 0, d).(*mat.Dense).Copy(x)
		for i := 0; i < sizes[c]; i++ {
			group[at+i] = c
		}
		at += sizes[c]
	}
	g := make([]float64, n*n)
	if err := kernels.GramFullInto(g, k, z); err != nil {
		return Result{}, err
	}
	res := Result{Estimator: Biased, Method: Permutation, Permutations: s.Permutations, Approx: Exact, Kernel: k.String()}
	res.Statistic = ksampleStat(g, n, group, sizes, make([]float64, len(xs)))
	null := make([]float64, s.Permutations)
	err := permutationsVec(ctx, n, s, func() func(b int, perm []int) {
		grp := make([]int, n)
		within := make([]float64, len(xs))
		return func(b int, perm []int) {
			for i, row := range perm {
				grp[row] = group[i]
			}
			null[b] = ksampleStat(g, n, grp, sizes, within)
		}
	})
	if err != nil {
		return Result{}, err
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}
