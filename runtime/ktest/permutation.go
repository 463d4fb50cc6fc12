package ktest

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// Settings configure the kernel tests. The zero value works.
type Settings struct {
	// Permutations is the size of the permutation null; default 1000.
	Permutations int
	// Seed seeds the permutations: permutation b draws from its own
	// stream, so results do not depend on Workers.
	Seed uint64
	// Estimator of the statistic: MMD "unbiased" (default), "biased" or
	// "linear"; HSIC "biased" (default) or "unbiased".
	Estimator Estimator
	// Workers share the permutations; default GOMAXPROCS.
	Workers int
}

func (s Settings) withDefaults(estimator Estimator) Settings {
	if s.Permutations <= 0 {
		s.Permutations = 1000
	}
	if s.Estimator == "" {
		s.Estimator = estimator
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s
}

// Result is the outcome of a kernel test.
type Result struct {
	Statistic    float64
	PValue       float64
	Estimator    Estimator
	Method       Method
	Permutations int
	Kernel       string
	KernelY      string    // HSIC: the kernel on y
	Bandwidths   []float64 // the aggregate test's rbf lengthscales
}

// Method is how a test finds its null distribution. Like Estimator it is a
// string type, validated by the test that uses it.
type Method string

// The methods.
const (
	// Permutation is the permutation null: the labels (MMD) or y's rows
	// (HSIC) permuted.
	Permutation Method = "permutation"
	// Gamma is the two-moment gamma approximation to the null of n·HSIC_b
	// (HSIC with the biased estimator only).
	Gamma Method = "gamma"
)

// permutations computes stat for Permutations random permutations of
// 0..n−1, in parallel, each from its own seeded stream.
func permutations(ctx context.Context, n int, s Settings, stat func(perm []int) float64) ([]float64, error) {
	out := make([]float64, s.Permutations)
	err := permutationsVec(ctx, n, s, func(b int, perm []int) { out[b] = stat(perm) })
	return out, err
}

// pValue is (1 + #{null ≥ t})/(1 + B), exact under the null for a
// permutation test.
func pValue(t float64, null []float64) float64 {
	c := 1
	for _, v := range null {
		if v >= t {
			c++
		}
	}
	return float64(c) / float64(len(null)+1)
}

// MMDTest is the two-sample test of P = Q with the MMD² statistic and a
// permutation null: the pooled Gram matrix is computed once and the samples'
// labels permuted.
// A cancelled ctx stops it and it returns ctx.Err().
func MMDTest(ctx context.Context, k kernels.Kernel, x, y *mat.Dense, s Settings) (Result, error) {
	s = s.withDefaults(Unbiased)
	z, m, err := pool(k, x, y, s.Estimator)
	if err != nil {
		return Result{}, err
	}
	nTot, d := z.Dims()
	res := Result{Estimator: s.Estimator, Method: Permutation, Permutations: s.Permutations, Kernel: k.String()}
	var stat func(perm []int) float64
	if s.Estimator == Linear {
		zs := linalg.RowMajor(z)
		stat = func(perm []int) float64 { return linearMMD(k, zs, zs, d, perm[:m], perm[m:]) }
	} else {
		gd, err := kernels.GramFull(k, z)
		if err != nil {
			return Result{}, err
		}
		stat = func(perm []int) float64 { return mmdFromGram(gd, nTot, perm, m, s.Estimator) }
	}
	res.Statistic = stat(identity(nTot))
	null, err := permutations(ctx, nTot, s, stat)
	if err != nil {
		return Result{}, err
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}

// MMDAggregateTest tests P = Q over rbf kernels with lengthscales
// median × 2^k, k = −2..2, in the spirit of MMDAgg (Schrab et al. 2023):
// for each kernel the unbiased MMD² of the data and of B label permutations
// is standardised by the mean and sd of those B + 1 values; the statistic is
// the largest standardised value over the kernels, and its null is the same
// maximum for each permutation. The standardisation is a symmetric function
// of the permuted data sets, so the test keeps its level. A cancelled ctx
// stops it and it returns ctx.Err().
func MMDAggregateTest(ctx context.Context, x, y *mat.Dense, s Settings) (Result, error) {
	s = s.withDefaults(Unbiased)
	s.Estimator = Unbiased
	probe, err := kernels.NewRBF([]float64{1})
	if err != nil {
		return Result{}, err
	}
	z, m, err := pool(probe, x, y, Unbiased)
	if err != nil {
		return Result{}, err
	}
	med, err := kernels.MedianHeuristic(z, s.Seed)
	if err != nil {
		return Result{}, err
	}
	if med == 0 {
		return Result{}, fmt.Errorf("every pair of points coincides: no bandwidth can be chosen")
	}
	nTot, _ := z.Dims()
	res := Result{Estimator: Unbiased, Method: Permutation, Permutations: s.Permutations, Kernel: "aggregate"}
	var grams [][]float64
	for e := -2; e <= 2; e++ {
		ell := med * math.Pow(2, float64(e))
		res.Bandwidths = append(res.Bandwidths, ell)
		rbf, err := kernels.NewRBF([]float64{ell})
		if err != nil {
			return Result{}, err
		}
		g, err := kernels.GramFull(rbf, z)
		if err != nil {
			return Result{}, err
		}
		grams = append(grams, g)
	}
	nk := len(grams)
	// stats[b][k]: b = 0 is the data, 1..B the permutations.
	stats := make([][]float64, s.Permutations+1)
	vec := func(perm []int) []float64 {
		v := make([]float64, nk)
		for k, g := range grams {
			v[k] = mmdFromGram(g, nTot, perm, m, Unbiased)
		}
		return v
	}
	stats[0] = vec(identity(nTot))
	if err := permutationsVec(ctx, nTot, s, func(b int, perm []int) { stats[b+1] = vec(perm) }); err != nil {
		return Result{}, err
	}
	mean := make([]float64, nk)
	sd := make([]float64, nk)
	for _, st := range stats {
		for k, v := range st {
			mean[k] += v / float64(len(stats))
		}
	}
	for _, st := range stats {
		for k, v := range st {
			sd[k] += (v - mean[k]) * (v - mean[k]) / float64(len(stats)-1)
		}
	}
	agg := func(st []float64) float64 {
		best := math.Inf(-1)
		for k, v := range st {
			if sd[k] > 0 {
				best = math.Max(best, (v-mean[k])/math.Sqrt(sd[k]))
			}
		}
		return best
	}
	res.Statistic = agg(stats[0])
	null := make([]float64, s.Permutations)
	for i := range null {
		null[i] = agg(stats[i+1])
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}

// permutationsVec runs body for permutation b = 0..Permutations−1 of
// 0..n−1 on the workers; permutation b comes from its own seeded stream.
// When ctx is cancelled the workers stop and it returns ctx.Err().
func permutationsVec(ctx context.Context, n int, s Settings, body func(b int, perm []int)) error {
	var wg sync.WaitGroup
	next := make(chan int, s.Permutations)
	for b := 0; b < s.Permutations; b++ {
		next <- b
	}
	close(next)
	for w := 0; w < min(s.Workers, s.Permutations); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				if ctx.Err() != nil {
					return
				}
				rnd := rng.New(s.Seed, rng.Permutation.Index(b))
				perm := identity(n)
				rnd.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				body(b, perm)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// HSICTest tests independence of paired rows of x and y. Method
// "permutation" permutes y's rows; "gamma" uses the two-moment gamma
// approximation to the null of n·HSIC_b (Gretton et al. 2008), which needs
// the biased estimator. A cancelled ctx stops a permutation test and it
// returns ctx.Err().
func HSICTest(ctx context.Context, kx, ky kernels.Kernel, x, y *mat.Dense, method Method, s Settings) (Result, error) {
	s = s.withDefaults(Biased)
	if method == "" {
		method = Permutation
	}
	if method != Permutation && method != Gamma {
		return Result{}, fmt.Errorf("method must be \"permutation\" or \"gamma\", got %q", method)
	}
	if method == Gamma && s.Estimator != Biased {
		return Result{}, fmt.Errorf("the gamma approximation is for the biased HSIC estimator")
	}
	kg, lg, err := hsicGrams(kx, ky, x, y, s.Estimator)
	if err != nil {
		return Result{}, err
	}
	n, _ := x.Dims()
	h := newHSICState(kg, lg, n, s.Estimator)
	res := Result{Estimator: s.Estimator, Method: method, Kernel: kx.String(), KernelY: ky.String()}
	res.Statistic = h.stat(identity(n))
	if method == Permutation {
		res.Permutations = s.Permutations
		null, err := permutations(ctx, n, s, h.stat)
		if err != nil {
			return Result{}, err
		}
		res.PValue = pValue(res.Statistic, null)
		return res, nil
	}
	res.PValue = gammaPValue(kg, lg, n)
	return res, nil
}

// gammaPValue fits a gamma distribution to n·HSIC_b under independence by
// its mean and variance (Gretton et al. 2008, section 4) and returns the
// upper tail probability of the observed n·HSIC_b.
func gammaPValue(kg, lg []float64, n int) float64 {
	kc, lc := centre(kg, n), centre(lg, n)
	fn := float64(n)
	stat := 0.0
	v := 0.0
	for i := 0; i < n*n; i++ {
		p := kc[i] * lc[i]
		stat += p
		if i/n != i%n {
			q := p / 6
			v += q * q
		}
	}
	stat /= fn
	v = v / fn / (fn - 1)
	v *= 72 * (fn - 4) * (fn - 5) / (fn * (fn - 1) * (fn - 2) * (fn - 3))
	muX, muY := 0.0, 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j {
				muX += kg[i*n+j]
				muY += lg[i*n+j]
			}
		}
	}
	muX /= fn * (fn - 1)
	muY /= fn * (fn - 1)
	mean := (1 + muX*muY - muX - muY) / fn
	alpha := mean * mean / v
	beta := v * fn / mean // scale
	g := distuv.Gamma{Alpha: alpha, Beta: 1 / beta}
	return g.Survival(stat)
}
