package ktest

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/progress"
)

// Collection returns count rbf lengthscales log-spaced from the 5%
// quantile of the Euclidean distances between rows of z to the largest
// (MedianHeuristic's seeded subsample above MedianMaxRows rows), so that
// the family reaches both the scale of nearest neighbours and the scale of
// the whole data set. A zero quantile (many coinciding rows) is replaced
// by a hundredth of the largest distance.
func Collection(z *mat.Dense, count int, seed uint64) ([]float64, error) {
	if count < 1 {
		return nil, fmt.Errorf("the collection needs at least one bandwidth, got %d", count)
	}
	lo, hi, err := kernels.DistanceQuantile(z, 0.05, seed)
	if err != nil {
		return nil, err
	}
	if !(hi > 0) {
		return nil, fmt.Errorf("every pair of points coincides: no bandwidth can be chosen")
	}
	if !(lo > 0) {
		lo = hi / 100
	}
	if count == 1 {
		return []float64{math.Sqrt(lo * hi)}, nil
	}
	out := make([]float64, count)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(count-1))
	}
	return out, nil
}

// MMDAggregateTest tests P = Q with the rbf kernels of Collection (of the
// pooled sample; Settings.Bandwidths of them, default 10) in the spirit of
// MMDAgg (Schrab et al. 2023). Every kernel is tested on the same label
// permutations; each kernel's p-value is the rank of its statistic among
// the B + 1 values (data and permutations), and the aggregate statistic is
// the smallest p-value over the kernels, whose null is the same minimum for
// each permutation (ranked among the same B + 1 values, so the test keeps
// its level exactly). This is MMDAgg's quantile adjustment with uniform
// weights: a kernel rejects when its p-value is at most the corrected level
// Threshold, the largest u with #{b : min-p_b ≤ u} ≤ α(B + 1), which is
// never far below Bonferroni's α/Λ and often well above it. A cancelled ctx
// stops it and it returns ctx.Err().
func MMDAggregateTest(ctx context.Context, x, y *mat.Dense, s Settings) (Result, error) {
	s = s.withDefaults(Unbiased)
	if s.Bandwidths <= 0 {
		s.Bandwidths = 10
	}
	// One line for the whole test, from its start: every kernel's
	// permutations count on it (its Gram matrices can take minutes).
	task := progress.Start(ctx, "permutations", s.Bandwidths*s.Permutations)
	defer task.Done()
	ctx = task.Nest(ctx)
	probe, err := kernels.NewRBF([]float64{1})
	if err != nil {
		return Result{}, err
	}
	z, m, err := pool(probe, x, y, s.Estimator)
	if err != nil {
		return Result{}, err
	}
	ells, err := Collection(z, s.Bandwidths, s.Seed)
	if err != nil {
		return Result{}, err
	}
	res := Result{Estimator: s.Estimator, Method: Permutation, Permutations: s.Permutations, Kernel: "aggregate", Bandwidths: ells}
	stats := make([][]float64, len(ells))
	// One Gram matrix at a time, in one buffer (allocated on first use).
	var gram []float64
	if a, _ := s.Approx.resolve(z.RawMatrix().Rows); a == Exact && s.Estimator != Linear {
		gram = make([]float64, z.RawMatrix().Rows*z.RawMatrix().Rows)
	}
	for i, ell := range ells {
		k, err := kernels.NewRBF([]float64{ell})
		if err != nil {
			return Result{}, err
		}
		if s.Estimator == Linear {
			nTot, d := z.Dims()
			zs := linalg.RowMajor(z)
			stat := func(perm []int) float64 { return linearMMD(k, zs, zs, d, perm[:m], perm[m:]) }
			null, err := permutations(ctx, nTot, s, stat)
			if err != nil {
				return Result{}, err
			}
			stats[i] = append([]float64{stat(identity(nTot))}, null...)
			continue
		}
		f, err := mmdForms(k, z, s, &res, gram)
		if err != nil {
			return Result{}, err
		}
		obs, null, err := labelNull(ctx, f, m, s)
		if err != nil {
			return Result{}, err
		}
		stats[i] = append([]float64{obs}, null...)
	}
	aggregate(stats, s.Alpha, &res)
	return res, nil
}

// aggregate combines the statistics stats[k][c] of kernel k on data set c
// (c = 0 the data, 1..B the permutations) by the minimum of the rank
// p-values, and fills the aggregate fields of res.
func aggregate(stats [][]float64, alpha float64, res *Result) {
	nc := len(stats[0])
	minp := make([]float64, nc)
	for c := range minp {
		minp[c] = math.Inf(1)
	}
	res.PValues = make([]float64, len(stats))
	sorted := make([]float64, nc)
	for k, st := range stats {
		copy(sorted, st)
		sort.Float64s(sorted)
		for c, v := range st {
			// #{c' : st[c'] ≥ v} / (B + 1).
			p := float64(nc-sort.SearchFloat64s(sorted, v)) / float64(nc)
			minp[c] = math.Min(minp[c], p)
			if c == 0 {
				res.PValues[k] = p
			}
		}
	}
	res.Statistic = minp[0]
	mp := append([]float64(nil), minp...)
	sort.Float64s(mp)
	count := func(t float64) int { return sort.Search(nc, func(i int) bool { return mp[i] > t }) }
	res.PValue = float64(count(minp[0])) / float64(nc)
	res.Threshold = 0
	for _, t := range mp {
		if float64(count(t)) > alpha*float64(nc) {
			break
		}
		res.Threshold = t
	}
	res.Alpha = alpha
	res.Rejected = make([]bool, len(stats))
	for k, p := range res.PValues {
		res.Rejected[k] = p <= res.Threshold
	}
}

// HSICAggregateTest tests independence with the product family of rbf
// kernels: Collection of x times Collection of y (Settings.Bandwidths per
// variable, default 5), every pair tested on the same permutations of y
// and combined as MMDAggregateTest combines its kernels. Method "gamma"
// has no permutations to share: it combines the pairs' gamma p-values by
// Bonferroni (p = min(1, Λ·min p), per-kernel level α/Λ). The Gram
// matrices of every bandwidth are held at once, so it uses the exact
// matrices only.
func HSICAggregateTest(ctx context.Context, x, y *mat.Dense, method Method, s Settings) (Result, error) {
	s = s.withDefaults(Biased)
	if s.Bandwidths <= 0 {
		s.Bandwidths = 5
	}
	if method == "" {
		method = Permutation
	}
	if method != Permutation && method != Gamma {
		return Result{}, fmt.Errorf("method must be \"permutation\" or \"gamma\", got %q", method)
	}
	if method == Gamma && s.Estimator != Biased {
		return Result{}, fmt.Errorf("the gamma approximation is for the biased HSIC estimator")
	}
	if err := checkPaired(x, y, s.Estimator); err != nil {
		return Result{}, err
	}
	// One line from the start, through the Gram matrices of every
	// bandwidth: the permutations, or the kernel pairs of "gamma".
	var task *progress.Task
	if method == Gamma {
		task = progress.Start(ctx, "kernel pairs", s.Bandwidths*s.Bandwidths)
	} else {
		task = progress.Start(ctx, "permutations", s.Permutations)
	}
	defer task.Done()
	ctx = task.Nest(ctx)
	ex, err := Collection(x, s.Bandwidths, s.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("x: %w", err)
	}
	ey, err := Collection(y, s.Bandwidths, s.Seed)
	if err != nil {
		return Result{}, fmt.Errorf("y: %w", err)
	}
	n, _ := x.Dims()
	if n > ExactMax {
		return Result{}, fmt.Errorf("the aggregate HSIC test holds %d Gram matrices of %d×%d at once; use at most %d pairs, or a given kernel with approx", 2*s.Bandwidths, n, n, ExactMax)
	}
	res := Result{Estimator: s.Estimator, Method: method, Kernel: "aggregate", KernelY: "aggregate", Approx: Exact}
	for _, a := range ex {
		for _, b := range ey {
			res.Bandwidths = append(res.Bandwidths, a)
			res.BandwidthsY = append(res.BandwidthsY, b)
		}
	}
	gram := func(z *mat.Dense, ell float64) ([]float64, error) {
		k, err := kernels.NewRBF([]float64{ell})
		if err != nil {
			return nil, err
		}
		return kernels.GramFull(k, z)
	}
	if method == Gamma {
		res.PValues = make([]float64, len(res.Bandwidths))
		minp := 1.0
		for i := range res.PValues {
			kg, err := gram(x, res.Bandwidths[i])
			if err != nil {
				return Result{}, err
			}
			lg, err := gram(y, res.BandwidthsY[i])
			if err != nil {
				return Result{}, err
			}
			_, res.PValues[i] = hsicGamma(kg, lg, n)
			minp = math.Min(minp, res.PValues[i])
			task.Add(1)
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
		}
		nk := float64(len(res.PValues))
		res.Statistic, res.PValue = minp, math.Min(1, nk*minp)
		res.Alpha, res.Threshold = s.Alpha, s.Alpha/nk
		res.Rejected = make([]bool, len(res.PValues))
		for i, p := range res.PValues {
			res.Rejected[i] = p <= res.Threshold
		}
		return res, nil
	}
	sx := make([]hsicSide, len(ex))
	sy := make([]hsicSide, len(ey))
	for i, ell := range ex {
		g, err := gram(x, ell)
		if err != nil {
			return Result{}, err
		}
		sx[i] = prepSide(g, n, s.Estimator, true)
	}
	for i, ell := range ey {
		g, err := gram(y, ell)
		if err != nil {
			return Result{}, err
		}
		sy[i] = prepSide(g, n, s.Estimator, false)
	}
	var states []*hsicState
	for _, a := range sx {
		for _, b := range sy {
			states = append(states, pairState(a, b, n, s.Estimator))
		}
	}
	stats := make([][]float64, len(states))
	id := identity(n)
	tr0 := make([]float64, len(states))
	productTraces(sx, sy, id, make([]float64, n), tr0)
	for i, h := range states {
		stats[i] = make([]float64, s.Permutations+1)
		stats[i][0] = h.finish(tr0[i], id)
	}
	err = permutationsVec(ctx, n, s, func() func(b int, perm []int) {
		buf := make([]float64, n)
		tr := make([]float64, len(states))
		return func(b int, perm []int) {
			productTraces(sx, sy, perm, buf, tr)
			for i, h := range states {
				stats[i][b+1] = h.finish(tr[i], perm)
			}
		}
	})
	if err != nil {
		return Result{}, err
	}
	res.Permutations = s.Permutations
	aggregate(stats, s.Alpha, &res)
	return res, nil
}

// productTraces sets tr[a·len(sy)+c] = Σ_ij Kx_a[i,j]·Ly_c[π(i),π(j)] for
// every pair of the product family. Each row of a permuted L is gathered
// once and shared by all the kernels on x (dot products over the upper
// triangle, the matrices being symmetric), so the family costs Λ_y gathers
// per row instead of Λ_x·Λ_y.
func productTraces(sx, sy []hsicSide, perm []int, buf, tr []float64) {
	n := len(perm)
	clear(tr)
	for c, ly := range sy {
		for i := 0; i < n; i++ {
			lr := ly.g[perm[i]*n : (perm[i]+1)*n]
			g := buf[:n-i-1]
			for j, p := range perm[i+1:] {
				g[j] = lr[p]
			}
			d := lr[perm[i]]
			for a, kx := range sx {
				kr := kx.g[i*n : (i+1)*n]
				tr[a*len(sy)+c] += 2*floats.Dot(kr[i+1:], g) + kr[i]*d
			}
		}
	}
}
