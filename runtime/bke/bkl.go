package bke

import (
	"context"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/progress"
)

// BKLSettings configures BKL. The zero value works.
type BKLSettings struct {
	// Tau2 is the fixed noise variance τ²; default 1, as in the paper's
	// experiments.
	Tau2 float64
	// Lower and Upper bound the lengthscale grid; defaults 1e-3 and 1e2
	// times the median distance between data rows and landmarks (over at
	// most 2000 evenly spaced data rows).
	Lower, Upper float64
	// GridPoints is the number of log-spaced grid points; default 100.
	GridPoints int
	// Refine is how many of the best local maxima of the grid profile are
	// refined; default 3.
	Refine int
	// Tol is the tolerance of the refinement in log ℓ (so roughly a
	// relative tolerance in ℓ); default 1e-6.
	Tol float64
	// Options are the model's options (prior, η, workers, variant).
	Options Options
}

// BKLMaximum is a local maximum of the profile log p(x | ℓ).
type BKLMaximum struct {
	Ell, LogDensity float64
}

// BKLResult is the outcome of BKL.
type BKLResult struct {
	// Ell is the lengthscale of the highest maximum found and LogDensity
	// the log pseudolikelihood there.
	Ell, LogDensity float64
	// Grid and Profile are the grid of lengthscales and the log density
	// at each (−Inf where it could not be evaluated).
	Grid, Profile []float64
	// Maxima are the refined local maxima, highest first; a maximum at an
	// end of the grid is reported unrefined.
	Maxima []BKLMaximum
}

// BKL returns the isotropic lengthscale that maximises the marginal
// pseudolikelihood (Bayesian kernel learning, Flaxman et al. 2016 §5) with
// τ² fixed and amplitude 1. The profile over ℓ is multimodal (the paper's
// Figure 2D), so the search is global: the log density on a log-spaced grid,
// then golden-section refinement in log ℓ of the best Refine local maxima of
// the grid, each within its two neighbouring grid points.
func BKL(x, z *mat.Dense, s BKLSettings) (BKLResult, error) {
	return BKLContext(context.Background(), x, z, s)
}

// BKLContext is BKL stopped by ctx: it checks ctx before each evaluation
// of the log density and returns ctx.Err() once it is done, and counts the
// evaluations on a progress line when ctx carries a reporter.
func BKLContext(ctx context.Context, x, z *mat.Dense, s BKLSettings) (BKLResult, error) {
	md, err := New(x, z, s.Options)
	if err != nil {
		return BKLResult{}, err
	}
	if err := s.defaults(md); err != nil {
		return BKLResult{}, err
	}
	task := progress.Start(ctx, "lengthscales", s.GridPoints)
	defer task.Done()
	f := func(logEll float64) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		defer task.Add(1)
		return md.LogDensity(Hyper{Ell: []float64{math.Exp(logEll)}, Tau2: s.Tau2}, nil)
	}
	r, err := bklSearch(f, s)
	if cerr := ctx.Err(); cerr != nil {
		return BKLResult{}, cerr
	}
	return r, err
}

// defaults fills in s's zero fields, the grid's range from md's data and
// landmarks, and checks them.
func (s *BKLSettings) defaults(md *Model) error {
	if s.Tau2 == 0 {
		s.Tau2 = 1
	}
	if !(s.Tau2 > 0) || math.IsInf(s.Tau2, 1) {
		return fmt.Errorf("bke: bkl: tau2 = %g must be positive and finite", s.Tau2)
	}
	if s.GridPoints == 0 {
		s.GridPoints = 100
	}
	if s.GridPoints < 3 {
		return fmt.Errorf("bke: bkl: %d grid points: need at least 3", s.GridPoints)
	}
	if s.Refine == 0 {
		s.Refine = 3
	}
	if s.Tol == 0 {
		s.Tol = 1e-6
	}
	if s.Lower == 0 || s.Upper == 0 {
		med := md.medianDistance()
		if !(med > 0) {
			return fmt.Errorf("bke: bkl: every data row coincides with every landmark: no scale to search over")
		}
		if s.Lower == 0 {
			s.Lower = 1e-3 * med
		}
		if s.Upper == 0 {
			s.Upper = 1e2 * med
		}
	}
	if !(s.Lower > 0 && s.Upper > s.Lower) || math.IsInf(s.Upper, 1) {
		return fmt.Errorf("bke: bkl: lengthscale range [%g, %g]: need 0 < lower < upper", s.Lower, s.Upper)
	}
	return nil
}

// bklSearch maximises the profile f(log ℓ) globally: f on the log-spaced
// grid of s, then golden-section refinement of the best s.Refine local
// maxima of the grid.
func bklSearch(f func(float64) (float64, error), s BKLSettings) (BKLResult, error) {
	res := BKLResult{Grid: make([]float64, s.GridPoints), Profile: make([]float64, s.GridPoints)}
	lo, hi := math.Log(s.Lower), math.Log(s.Upper)
	step := (hi - lo) / float64(s.GridPoints-1)
	var firstErr error
	for k := range res.Grid {
		le := lo + float64(k)*step
		res.Grid[k] = math.Exp(le)
		v, err := f(le)
		if err != nil || math.IsNaN(v) {
			if firstErr == nil {
				firstErr = err
			}
			v = math.Inf(-1)
		}
		res.Profile[k] = v
	}
	return refineProfile(f, res, s, firstErr)
}

// refineProfile finds the local maxima of res's grid profile of f and
// refines the best s.Refine of them.
func refineProfile(f func(float64) (float64, error), res BKLResult, s BKLSettings, firstErr error) (BKLResult, error) {
	// Local maxima of the grid profile, best first.
	var peaks []int
	last := s.GridPoints - 1
	for k, v := range res.Profile {
		if math.IsInf(v, -1) {
			continue
		}
		if (k == 0 || v > res.Profile[k-1]) && (k == last || v >= res.Profile[k+1]) {
			peaks = append(peaks, k)
		}
	}
	if len(peaks) == 0 {
		if firstErr == nil {
			firstErr = fmt.Errorf("bke: bkl: the log density could not be evaluated on the grid")
		}
		return BKLResult{}, firstErr
	}
	sort.SliceStable(peaks, func(a, b int) bool { return res.Profile[peaks[a]] > res.Profile[peaks[b]] })
	if len(peaks) > s.Refine {
		peaks = peaks[:s.Refine]
	}
	for _, k := range peaks {
		best := BKLMaximum{Ell: res.Grid[k], LogDensity: res.Profile[k]}
		if k > 0 && k < last {
			le, v := goldenMax(f, math.Log(res.Grid[k-1]), math.Log(res.Grid[k+1]), s.Tol)
			if v > best.LogDensity {
				best = BKLMaximum{Ell: math.Exp(le), LogDensity: v}
			}
		}
		res.Maxima = append(res.Maxima, best)
	}
	sort.SliceStable(res.Maxima, func(a, b int) bool { return res.Maxima[a].LogDensity > res.Maxima[b].LogDensity })
	res.Ell, res.LogDensity = res.Maxima[0].Ell, res.Maxima[0].LogDensity
	return res, nil
}

// goldenMax maximises f on [a, b] by golden-section search to width tol and
// returns the best point it evaluated. Points where f fails count as −Inf.
func goldenMax(f func(float64) (float64, error), a, b, tol float64) (float64, float64) {
	const invPhi = 0.6180339887498949
	eval := func(t float64) float64 {
		v, err := f(t)
		if err != nil || math.IsNaN(v) {
			return math.Inf(-1)
		}
		return v
	}
	c := b - invPhi*(b-a)
	d := a + invPhi*(b-a)
	fc, fd := eval(c), eval(d)
	for b-a > tol {
		if fc >= fd {
			b, d, fd = d, c, fc
			c = b - invPhi*(b-a)
			fc = eval(c)
		} else {
			a, c, fc = c, d, fd
			d = a + invPhi*(b-a)
			fd = eval(d)
		}
	}
	if fc >= fd {
		return c, fc
	}
	return d, fd
}

// medianDistance is the median Euclidean distance between data rows (at most
// 2000, evenly spaced) and landmarks.
func (md *Model) medianDistance() float64 {
	rows := min(md.n, 2000)
	dist := make([]float64, 0, rows*md.m)
	for k := 0; k < rows; k++ {
		xi := md.xrow(k * md.n / rows)
		for l := 0; l < md.m; l++ {
			zl := md.zrow(l)
			var s float64
			for d := range xi {
				s += (xi[d] - zl[d]) * (xi[d] - zl[d])
			}
			dist = append(dist, math.Sqrt(s))
		}
	}
	sort.Float64s(dist)
	h := len(dist) / 2
	if len(dist)%2 == 1 {
		return dist[h]
	}
	return (dist[h-1] + dist[h]) / 2
}
