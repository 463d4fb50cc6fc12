package ktest

import (
	"context"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/kernels"
)

// BKLOptions are the settings of the "bkl" kernel choice. The zero value is
// the default rule (docs/language.md, "Choosing BKL's settings", and the
// study in studies/bklstudy).
type BKLOptions struct {
	// Landmarks is the number m of rows held out as landmarks; 0: the rule
	// DefaultLandmarks.
	Landmarks int
	// Tau2 is the fixed noise τ²; 0: the rule DefaultTau2(m).
	Tau2 float64
	// Draws is the number of independent landmark draws whose profiles are
	// averaged; 0: DefaultDraws.
	Draws int
	// Points, if set, are the landmarks themselves: every row of the data
	// is kept and the profile is the one of these landmarks (one draw, m
	// their row count); Landmarks and Draws must then be 0.
	Points *mat.Dense
	// Variant is the BKE density maximised: bke.Derived (the default) or
	// bke.Published, the authors' Stan program.
	Variant bke.Variant
}

// DefaultDraws is the number of landmark draws the "bkl" choice averages.
const DefaultDraws = 5

// DefaultLandmarks is the default landmark count for n rows in d
// dimensions: max(50, ⌈√n⌉), at most n/5, and at least d + 1 (the
// pseudolikelihood needs m > d); 0 if no such count exists.
func DefaultLandmarks(n, d int) int {
	m := max(50, int(math.Ceil(math.Sqrt(float64(n)))))
	m = min(m, n/5)
	if m < d+1 {
		m = d + 1
		if m > n/2 {
			return 0
		}
	}
	return m
}

// DefaultTau2 is the default τ² for m landmarks: m/10. The pseudo-
// observations of a row weigh Σ_j (K_ij − μ̂_j)²/τ², a sum over m landmarks,
// against the row's Jacobian term, which does not grow with m; τ² ∝ m keeps
// their balance whatever m is (τ² = 1, the paper's Figure 2 value, at
// m = 10; the paper states no landmark count).
func DefaultTau2(m int) float64 { return float64(m) / 10 }

// FragileFactor is how far (as a ratio) the landmark draws' own choices may
// spread before the choice is called fragile; FragileSE is how many
// standard errors (over the draws) the best mode must lead the second by.
const (
	FragileFactor = 2
	FragileSE     = 2
)

// ChooseBKL picks the rbf lengthscale of data by Bayesian kernel learning
// with the settings o (zero fields by the default rules): the maximiser of
// the log pseudolikelihood averaged over o.Draws seeded landmark draws of m
// rows each, τ² fixed. The chosen record reports the settings, the mean
// profile's local maxima, each draw's own choice and, in Fragile, why the
// choice is fragile (empty if it is not).
// A cancelled ctx stops it with ctx.Err() (checked before every
// evaluation of the pseudolikelihood), with progress on ctx's reporter.
// It is the one implementation of BKL's settings and rules: the kernel
// tests' "bkl" choice and the bkl builtin both call it.
func ChooseBKL(ctx context.Context, data *mat.Dense, seed uint64, o BKLOptions) (Chosen, error) {
	if o.Points != nil {
		return chooseBKLAt(ctx, data, o)
	}
	n, d := data.Dims()
	m := o.Landmarks
	if m == 0 {
		if m = DefaultLandmarks(n, d); m == 0 {
			return Chosen{}, fmt.Errorf("too few rows (%d) to hold out more landmarks than the %d dimensions for bkl", n, d)
		}
	}
	if m <= d || m >= n {
		return Chosen{}, fmt.Errorf("bkl: cannot hold out %d landmarks from %d rows in %d dimensions (need %d < m < %d)", m, n, d, d, n)
	}
	tau2 := o.Tau2
	if tau2 == 0 {
		tau2 = DefaultTau2(m)
	}
	draws := o.Draws
	if draws == 0 {
		draws = DefaultDraws
	}
	r, err := bke.BKLDraws(ctx, data, m, draws, seed, bke.BKLSettings{Tau2: tau2, Options: bke.Options{Variant: o.Variant}})
	if err != nil {
		return Chosen{}, err
	}
	c, err := bklChosen(r, m, tau2, draws, o.Variant)
	if err != nil {
		return Chosen{}, err
	}
	c.Fragile = fragile(data, m, draws, seed, tau2, o.Variant, r)
	return c, nil
}

// chooseBKLAt is BKL with the given landmarks o.Points: one profile, τ²
// by the same rule as for drawn landmarks.
func chooseBKLAt(ctx context.Context, data *mat.Dense, o BKLOptions) (Chosen, error) {
	if o.Landmarks != 0 || o.Draws > 1 {
		return Chosen{}, fmt.Errorf("bkl: given landmark points are one draw of %d landmarks", o.Points.RawMatrix().Rows)
	}
	m, dz := o.Points.Dims()
	if _, d := data.Dims(); d != dz {
		return Chosen{}, fmt.Errorf("bkl: the landmarks have %d columns and the data %d", dz, d)
	}
	tau2 := o.Tau2
	if tau2 == 0 {
		tau2 = DefaultTau2(m)
	}
	r, err := bke.BKLContext(ctx, data, o.Points, bke.BKLSettings{Tau2: tau2, Options: bke.Options{Variant: o.Variant}})
	if err != nil {
		return Chosen{}, err
	}
	return bklChosen(bke.BKLDrawsResult{BKLResult: r, DrawEll: []float64{r.Ell}}, m, tau2, 1, o.Variant)
}

// bklChosen is the Chosen of a BKL result.
func bklChosen(r bke.BKLDrawsResult, m int, tau2 float64, draws int, v bke.Variant) (Chosen, error) {
	k, err := kernels.NewRBF([]float64{r.Ell})
	if err != nil {
		return Chosen{}, err
	}
	return Chosen{Kernel: k, Choice: ChoiceBKL, Ell: []float64{r.Ell}, Landmarks: m, Tau2: tau2,
		Draws: draws, DrawEll: r.DrawEll, Maxima: r.Maxima, Grid: r.Grid, Profile: r.Profile, Variant: v}, nil
}

// fragile says why a BKL choice is fragile: the draws' own choices spread
// by more than FragileFactor, or the second mode of the mean profile is
// within FragileSE standard errors (over the draws) of the first.
func fragile(data *mat.Dense, m, draws int, seed uint64, tau2 float64, v bke.Variant, r bke.BKLDrawsResult) string {
	var why []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range r.DrawEll {
		lo, hi = math.Min(lo, e), math.Max(hi, e)
	}
	if hi > FragileFactor*lo {
		why = append(why, fmt.Sprintf("the %d landmark draws alone choose ℓ from %.3g to %.3g", draws, lo, hi))
	}
	if len(r.Maxima) > 1 && draws > 1 {
		diff, err := modeDifferences(data, m, draws, seed, tau2, v, r.Maxima[0].Ell, r.Maxima[1].Ell)
		if err == nil {
			mean, se := meanSE(diff)
			if mean <= FragileSE*se {
				why = append(why, fmt.Sprintf("the second mode ℓ = %.3g trails the first by %.3g ± %.3g (SE over draws) in log pseudolikelihood", r.Maxima[1].Ell, mean, se))
			}
		}
	}
	return strings.Join(why, "; ")
}

// modeDifferences is, per landmark draw, the log pseudolikelihood at ell1
// minus that at ell2.
func modeDifferences(data *mat.Dense, m, draws int, seed uint64, tau2 float64, v bke.Variant, ell1, ell2 float64) ([]float64, error) {
	out := make([]float64, draws)
	for r := range out {
		rest, z := bke.Split(data, m, bke.DrawSeed(seed, r))
		md, err := bke.New(rest, z, bke.Options{Variant: v})
		if err != nil {
			return nil, err
		}
		a, err := md.LogDensity(bke.Hyper{Ell: []float64{ell1}, Tau2: tau2}, nil)
		if err != nil {
			return nil, err
		}
		b, err := md.LogDensity(bke.Hyper{Ell: []float64{ell2}, Tau2: tau2}, nil)
		if err != nil {
			return nil, err
		}
		out[r] = a - b
	}
	return out, nil
}

func meanSE(x []float64) (float64, float64) {
	var s float64
	for _, v := range x {
		s += v
	}
	mean := s / float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1) / float64(len(x)))
}
