package ktest

import (
	"context"
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
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
	// Approx is "auto" (default: exact up to ExactMax rows), "exact",
	// "nystrom" or "rff"; Rank is the rank of the approximation (default
	// DefaultRank).
	Approx Approx
	Rank   int
	// Alpha is the level at which the aggregate tests report which
	// kernels reject; default 0.05.
	Alpha float64
	// Bandwidths is the size of the aggregate tests' collection of
	// lengthscales (per variable for HSIC); default 10 for MMD, 5 for HSIC.
	Bandwidths int
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
	if s.Alpha == 0 {
		s.Alpha = 0.05
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
	KernelY      string // HSIC: the kernel on y
	// Approx is the Gram matrix used by a permutation null (exact or a
	// low-rank approximation of Rank).
	Approx Approx
	Rank   int
	// The aggregate tests: the lengthscales of each kernel of the
	// collection (BandwidthsY: HSIC's lengthscale on y, paired with
	// Bandwidths entry by entry), each kernel's permutation p-value, the
	// per-kernel level Threshold corrected for the multiplicity at level
	// Alpha, and which kernels' p-values fall below it.
	Bandwidths  []float64
	BandwidthsY []float64
	PValues     []float64
	Threshold   float64
	Alpha       float64
	Rejected    []bool
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
	err := permutationsVec(ctx, n, s, func() func(b int, perm []int) {
		return func(b int, perm []int) { out[b] = stat(perm) }
	})
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
// permutation null: the pooled Gram matrix is computed once (or, with
// Settings.Approx, a low-rank feature map) and the samples' labels
// permuted (exactLabelNull, featureForms.labelNull).
// A cancelled ctx stops it and it returns ctx.Err().
func MMDTest(ctx context.Context, k kernels.Kernel, x, y *mat.Dense, s Settings) (Result, error) {
	s = s.withDefaults(Unbiased)
	z, m, err := pool(k, x, y, s.Estimator)
	if err != nil {
		return Result{}, err
	}
	nTot, d := z.Dims()
	res := Result{Estimator: s.Estimator, Method: Permutation, Permutations: s.Permutations, Kernel: k.String()}
	if s.Estimator == Linear {
		zs := linalg.RowMajor(z)
		stat := func(perm []int) float64 { return linearMMD(k, zs, zs, d, perm[:m], perm[m:]) }
		res.Statistic = stat(identity(nTot))
		null, err := permutations(ctx, nTot, s, stat)
		if err != nil {
			return Result{}, err
		}
		res.PValue = pValue(res.Statistic, null)
		return res, nil
	}
	f, err := mmdForms(k, z, s, &res, nil)
	if err != nil {
		return Result{}, err
	}
	obs, null, err := labelNull(ctx, f, m, s)
	if err != nil {
		return Result{}, err
	}
	res.Statistic, res.PValue = obs, pValue(obs, null)
	return res, nil
}

// mmdForms computes the pooled Gram matrix (into gram if it is not nil),
// or the features of the approximation Settings.Approx resolves to, and
// notes which in res.
func mmdForms(k kernels.Kernel, z *mat.Dense, s Settings, res *Result, gram []float64) (gramForms, error) {
	nTot, _ := z.Dims()
	approx, err := s.Approx.resolve(nTot)
	if err != nil {
		return nil, err
	}
	res.Approx = approx
	if approx == Exact {
		if gram == nil {
			gram = make([]float64, nTot*nTot)
		}
		if err := kernels.GramFullInto(gram, k, z); err != nil {
			return nil, err
		}
		return newExactForms(gram, nTot), nil
	}
	phi, r, err := features(k, z, approx, s.Rank, s.Seed)
	if err != nil {
		return nil, err
	}
	res.Rank = r
	return newFeatureForms(phi, nTot, r), nil
}

// HSICTest tests independence of paired rows of x and y. Method
// "permutation" permutes y's rows; "gamma" uses the two-moment gamma
// approximation to the null of n·HSIC_b (Gretton et al. 2008), which needs
// the biased estimator. With Settings.Approx resolving to a low-rank map
// (biased estimator only), a permutation costs O(n·r_x·r_y) instead of
// O(n²). A cancelled ctx stops a permutation test and it returns ctx.Err().
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
	if err := checkPaired(x, y, s.Estimator); err != nil {
		return Result{}, err
	}
	n, _ := x.Dims()
	res := Result{Estimator: s.Estimator, Method: method, Kernel: kx.String(), KernelY: ky.String()}
	approx := Exact
	if method == Permutation {
		var err error
		if approx, err = s.Approx.resolve(n); err != nil {
			return Result{}, err
		}
	}
	if approx != Exact {
		if s.Estimator != Biased {
			return Result{}, fmt.Errorf("the low-rank HSIC null needs the biased estimator")
		}
		return hsicLowRank(ctx, kx, ky, x, y, approx, s, res)
	}
	res.Approx = Exact
	kg, lg, err := hsicGrams(kx, ky, x, y, s.Estimator)
	if err != nil {
		return Result{}, err
	}
	if method == Gamma {
		res.Statistic, res.PValue = hsicGamma(kg, lg, n)
		return res, nil
	}
	h := newHSICState(kg, lg, n, s.Estimator)
	res.Statistic = h.stat(identity(n))
	res.Permutations = s.Permutations
	null, err := permutations(ctx, n, s, h.stat)
	if err != nil {
		return Result{}, err
	}
	res.PValue = pValue(res.Statistic, null)
	return res, nil
}
