package ktest

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// SteinBase is the base kernel k of a kernel Stein discrepancy, a radial
// kernel k(x, y) = f(‖x − y‖²) whose derivatives the Stein kernel needs in
// closed form.
type SteinBase string

// The base kernels.
const (
	// IMQ is the inverse multiquadric f(u) = (1 + u/ℓ²)^β, β ∈ (−1, 0)
	// (Gorham and Mackey 2017, with c = 1 after scaling by ℓ): its KSD
	// detects non-convergence (a sequence with KSD → 0 converges weakly to
	// the target, for distantly dissipative targets), which the Gaussian
	// kernel's does not in more than two dimensions, where its fast decay
	// lets a sample drift away with a small discrepancy.
	IMQ SteinBase = "imq"
	// RBF is the Gaussian f(u) = exp(−u/(2ℓ²)) (Liu, Lee and Jordan 2016;
	// Chwialkowski, Strathmann and Gretton 2016).
	RBF SteinBase = "rbf"
)

// KSDSettings configure KSDTest. Ell must be set (or Ells, for the
// aggregated test); the other zero values work.
type KSDSettings struct {
	// Base is the base kernel, IMQ by default.
	Base SteinBase
	// Ell is the base kernel's lengthscale ℓ > 0.
	Ell float64
	// Ells, when not empty, makes the test the aggregated one (KSDAgg)
	// over these lengthscales; Ell is then ignored.
	Ells []float64
	// Beta is the IMQ exponent, in (−1, 0); default −½.
	Beta float64
	// Bootstraps is the number of wild-bootstrap draws; default 1000.
	Bootstraps int
	// Seed seeds the bootstrap: draw b has its own stream.
	Seed uint64
	// Alpha is the level at which the aggregated test reports which
	// lengthscales reject; default 0.05.
	Alpha float64
	// Workers share the bootstrap draws; default GOMAXPROCS.
	Workers int
}

func (s KSDSettings) withDefaults() KSDSettings {
	if s.Base == "" {
		s.Base = IMQ
	}
	if s.Beta == 0 {
		s.Beta = -0.5
	}
	if s.Bootstraps <= 0 {
		s.Bootstraps = 1000
	}
	if s.Alpha == 0 {
		s.Alpha = 0.05
	}
	if s.Workers <= 0 {
		s.Workers = runtime.GOMAXPROCS(0)
	}
	return s
}

// radial returns f(u), f′(u) and f″(u) of the base kernel at u = ‖x − y‖².
func (s KSDSettings) radial(ell float64) func(u float64) (f, f1, f2 float64) {
	l2 := ell * ell
	if s.Base == RBF {
		return func(u float64) (float64, float64, float64) {
			f := math.Exp(-u / (2 * l2))
			return f, -f / (2 * l2), f / (4 * l2 * l2)
		}
	}
	b := s.Beta
	return func(u float64) (float64, float64, float64) {
		a := 1 + u/l2
		f := math.Pow(a, b)
		return f, b / l2 * f / a, b * (b - 1) / (l2 * l2) * f / (a * a)
	}
}

func (s KSDSettings) check() error {
	if s.Base != IMQ && s.Base != RBF {
		return fmt.Errorf(`the base kernel must be "imq" or "rbf", got %q`, s.Base)
	}
	if s.Base == IMQ && !(s.Beta > -1 && s.Beta < 0) {
		return fmt.Errorf("the IMQ exponent beta must be in (-1, 0), got %g", s.Beta)
	}
	ells := s.Ells
	if len(ells) == 0 {
		ells = []float64{s.Ell}
	}
	for _, l := range ells {
		if !(l > 0) || math.IsInf(l, 0) {
			return fmt.Errorf("the lengthscale must be positive and finite, got %g", l)
		}
	}
	return nil
}

// SteinGram returns the n×n matrix (row by row) of the Stein kernel
//
//	h(x, y) = s(x)ᵀs(y) k(x, y) + s(x)ᵀ∇_y k + s(y)ᵀ∇_x k + Σᵢ ∂²k/∂xᵢ∂yᵢ
//
// at the rows of x, where score holds s = ∇ log p at each row. For
// k = f(u), u = ‖x − y‖²: ∇_x k = 2f′(u)(x − y) = −∇_y k and
// Σᵢ ∂²k/∂xᵢ∂yᵢ = −2d·f′(u) − 4u·f″(u), so
// h = f·s(x)ᵀs(y) + 2f′·(s(y) − s(x))ᵀ(x − y) − 2d·f′ − 4u·f″.
// Under the target E h(X, X′) = 0 for independent X, X′ ~ p (Stein's
// identity), and E h = KSD² ≥ 0 for any other distribution with a
// density whose score is integrable.
func SteinGram(x, score *mat.Dense, s KSDSettings, ell float64) ([]float64, error) {
	s = s.withDefaults()
	s.Ell, s.Ells = ell, nil
	if err := s.check(); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	if r, c := score.Dims(); r != n || c != d {
		return nil, fmt.Errorf("the scores are %d×%d for %d×%d data", r, c, n, d)
	}
	f := s.radial(ell)
	h := make([]float64, n*n)
	par.Blocks(n, 16, s.Workers, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			xi, si := x.RawRowView(i), score.RawRowView(i)
			for j := i; j < n; j++ {
				xj, sj := x.RawRowView(j), score.RawRowView(j)
				var u, ss, diff float64
				for c := 0; c < d; c++ {
					dx := xi[c] - xj[c]
					u += dx * dx
					ss += si[c] * sj[c]
					diff += (sj[c] - si[c]) * dx
				}
				fv, f1, f2 := f(u)
				v := fv*ss + 2*f1*diff - 2*float64(d)*f1 - 4*u*f2
				h[i*n+j], h[j*n+i] = v, v
			}
		}
	})
	for _, v := range h {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("the Stein kernel is not finite (a score is not finite?)")
		}
	}
	return h, nil
}

// ksdU is the U-statistic (1/(n(n−1))) Σ_{i≠j} h_ij.
func ksdU(h []float64, n int) float64 {
	var tot, tr float64
	for i := 0; i < n; i++ {
		row := h[i*n : (i+1)*n]
		for _, v := range row {
			tot += v
		}
		tr += row[i]
	}
	return (tot - tr) / float64(n*(n-1))
}

// rademacher fills e with the multipliers of bootstrap draw b: ±1 with
// probability ½ each, from the draw's own stream.
func rademacher(seed uint64, b int, e []float64) {
	r := rng.New(seed, rng.WildBootstrap.Index(b))
	for i := range e {
		if r.Uint64()&1 == 1 {
			e[i] = 1
		} else {
			e[i] = -1
		}
	}
}

// wildBootstrap returns, for each Stein matrix of hs and each bootstrap
// draw b, the U-statistic with Rademacher multipliers,
// (1/(n(n−1))) Σ_{i≠j} ε_i ε_j h_ij (Chwialkowski et al. 2016 for i.i.d.
// data; Schrab et al. 2022), in out[k][b]. The draws of a block of
// permBlock are one matrix product H·E; every draw's multipliers come from
// its own stream and the sums run in a fixed order, so the result does not
// depend on the number of workers. The same multipliers serve every
// matrix, as the aggregated test needs.
func wildBootstrap(ctx context.Context, hs [][]float64, n int, s KSDSettings) ([][]float64, error) {
	out := make([][]float64, len(hs))
	traces := make([]float64, len(hs))
	for k, h := range hs {
		out[k] = make([]float64, s.Bootstraps)
		for i := 0; i < n; i++ {
			traces[k] += h[i*n+i]
		}
	}
	type scratch struct{ e, he []float64 }
	newScratch := func() *scratch {
		return &scratch{e: make([]float64, n*permBlock), he: make([]float64, n*permBlock)}
	}
	task := progress.Start(ctx, "bootstrap", s.Bootstraps)
	defer task.Done()
	norm := float64(n * (n - 1))
	par.Each(s.Bootstraps, permBlock, s.Workers, newScratch, func(w *scratch, _, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		defer task.Add(hi - lo)
		rows := hi - lo
		col := make([]float64, n)
		e := mat.NewDense(n, rows, w.e[:n*rows])
		for b := 0; b < rows; b++ {
			rademacher(s.Seed, lo+b, col)
			e.SetCol(b, col)
		}
		he := mat.NewDense(n, rows, w.he[:n*rows])
		for k, h := range hs {
			he.Mul(mat.NewDense(n, n, h), e)
			for b := 0; b < rows; b++ {
				var q float64
				for i := 0; i < n; i++ {
					q += e.At(i, b) * he.At(i, b)
				}
				out[k][lo+b] = (q - traces[k]) / norm
			}
		}
	})
	return out, ctx.Err()
}

// KSDResult is the outcome of KSDTest.
type KSDResult struct {
	// Statistic is the U-statistic KSD²_u (for the aggregated test the
	// smallest p-value over the lengthscales); PValue is
	// (1 + #{B_b ≥ T})/(1 + B) over the wild-bootstrap draws B_b.
	Statistic, PValue float64
	Bootstraps        int
	Base              SteinBase
	Ell, Beta         float64
	// The aggregated test: each lengthscale's U-statistic and p-value,
	// the corrected per-lengthscale level, and which reject at it.
	Ells, Statistics, PValues []float64
	Threshold, Alpha          float64
	Rejected                  []bool
}

// KSDTest is the kernel Stein discrepancy goodness-of-fit test of
// H0: the rows of x are i.i.d. draws from p, given the score ∇ log p at
// each row (Liu, Lee and Jordan 2016; Chwialkowski, Strathmann and
// Gretton 2016). The statistic is the U-statistic of the Stein kernel
// (SteinGram), degenerate under H0; its null is the Rademacher wild
// bootstrap. With Settings.Ells it is KSDAgg (Schrab, Guedj and Gretton
// 2022): every lengthscale is tested on the same bootstrap draws, and the
// smallest p-value is calibrated by the same minimum over the draws, with
// MMDAgg's quantile correction (aggregate). The wild bootstrap is
// asymptotically exact, not exact at finite n. A cancelled ctx stops it
// and it returns ctx.Err().
func KSDTest(ctx context.Context, x, score *mat.Dense, s KSDSettings) (KSDResult, error) {
	s = s.withDefaults()
	if err := s.check(); err != nil {
		return KSDResult{}, err
	}
	n, _ := x.Dims()
	if n < 2 {
		return KSDResult{}, fmt.Errorf("the test needs at least 2 rows, got %d", n)
	}
	ells := s.Ells
	if len(ells) == 0 {
		ells = []float64{s.Ell}
	}
	res := KSDResult{Bootstraps: s.Bootstraps, Base: s.Base, Beta: s.Beta}
	if s.Base != IMQ {
		res.Beta = 0
	}
	hs := make([][]float64, len(ells))
	stats := make([]float64, len(ells))
	for k, l := range ells {
		h, err := SteinGram(x, score, s, l)
		if err != nil {
			return KSDResult{}, err
		}
		hs[k], stats[k] = h, ksdU(h, n)
	}
	boot, err := wildBootstrap(ctx, hs, n, s)
	if err != nil {
		return KSDResult{}, err
	}
	if len(s.Ells) == 0 {
		res.Ell, res.Statistic, res.PValue = s.Ell, stats[0], pValue(stats[0], boot[0])
		return res, nil
	}
	all := make([][]float64, len(ells))
	for k := range ells {
		all[k] = append([]float64{stats[k]}, boot[k]...)
	}
	var agg Result
	aggregate(all, s.Alpha, &agg)
	res.Statistic, res.PValue = agg.Statistic, agg.PValue
	res.Ells, res.Statistics, res.PValues = ells, stats, agg.PValues
	res.Threshold, res.Alpha, res.Rejected = agg.Threshold, agg.Alpha, agg.Rejected
	return res, nil
}
