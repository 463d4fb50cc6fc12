package bke

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/kml-lang/kml/runtime/progress"

	"gonum.org/v1/gonum/mat"
)

// BKLDrawsResult is the outcome of BKLDraws: the maximisation of the mean
// profile (Grid, Profile, Maxima, Ell and LogDensity refer to the mean of
// the draws' log pseudolikelihoods) and each draw's own maximiser.
type BKLDrawsResult struct {
	BKLResult
	// DrawEll is the lengthscale each landmark draw alone would choose (the
	// best point of its own profile on the shared grid, refined).
	DrawEll []float64
}

// DrawSeed is the seed of landmark draw r of BKLDraws: seed itself for the
// first draw, so one draw is BKL on Split(x, m, seed).
func DrawSeed(seed uint64, r int) uint64 {
	return seed + uint64(r)*0x9E3779B97F4A7C15
}

// BKLDraws holds out m rows of x as landmarks in draws independent seeded
// ways (draw r by Split(x, m, DrawSeed(seed, r))) and maximises over ℓ the
// mean of the draws' log pseudolikelihoods: the profile averaged over the
// choice of landmarks, which the model itself leaves arbitrary. The grid's
// range is set from the first draw's data–landmark distances unless s sets
// it. One draw is BKL on the first split.
//
// A cancelled ctx stops it before each draw's model is built and before
// each evaluation of a log density, with ctx.Err(); the evaluations of the
// grid are counted on ctx's progress line.
func BKLDraws(ctx context.Context, x *mat.Dense, m, draws int, seed uint64, s BKLSettings) (BKLDrawsResult, error) {
	if draws < 1 {
		return BKLDrawsResult{}, fmt.Errorf("bke: bkl: %d landmark draws: need at least 1", draws)
	}
	n, _ := x.Dims()
	if m < 1 || m >= n {
		return BKLDrawsResult{}, fmt.Errorf("bke: bkl: cannot hold out %d landmarks from %d rows", m, n)
	}
	mds := make([]*Model, draws)
	for r := range mds {
		if err := ctx.Err(); err != nil {
			return BKLDrawsResult{}, err
		}
		rest, z := Split(x, m, DrawSeed(seed, r))
		md, err := New(rest, z, s.Options)
		if err != nil {
			return BKLDrawsResult{}, err
		}
		mds[r] = md
	}
	if err := s.defaults(mds[0]); err != nil {
		return BKLDrawsResult{}, err
	}
	one := func(r int) func(float64) (float64, error) {
		return func(logEll float64) (float64, error) {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			return mds[r].LogDensity(Hyper{Ell: []float64{math.Exp(logEll)}, Tau2: s.Tau2}, nil)
		}
	}
	mean := func(logEll float64) (float64, error) {
		var sum float64
		for r := range mds {
			v, err := one(r)(logEll)
			if err != nil {
				return 0, err
			}
			sum += v
		}
		return sum / float64(draws), nil
	}
	// Each draw's profile on the shared grid; their mean is the profile.
	res := BKLResult{Grid: make([]float64, s.GridPoints), Profile: make([]float64, s.GridPoints)}
	lo, hi := math.Log(s.Lower), math.Log(s.Upper)
	step := (hi - lo) / float64(s.GridPoints-1)
	per := make([][]float64, draws)
	var firstErr error
	for r := range per {
		per[r] = make([]float64, s.GridPoints)
	}
	task := progress.Start(ctx, "lengthscales", s.GridPoints*draws)
	defer task.Done()
	for k := range res.Grid {
		le := lo + float64(k)*step
		res.Grid[k] = math.Exp(le)
		var sum float64
		for r := range per {
			v, err := one(r)(le)
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return BKLDrawsResult{}, err
			}
			if err != nil || math.IsNaN(v) {
				if firstErr == nil {
					firstErr = err
				}
				v = math.Inf(-1)
			}
			per[r][k] = v
			sum += v
			task.Add(1)
		}
		res.Profile[k] = sum / float64(draws)
	}
	out := BKLDrawsResult{}
	var err error
	if out.BKLResult, err = refineProfile(mean, res, s, firstErr); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return BKLDrawsResult{}, cerr
		}
		return BKLDrawsResult{}, err
	}
	if draws == 1 {
		out.DrawEll = []float64{out.Ell}
		return out, nil
	}
	one1 := s
	one1.Refine = 1
	for r := range per {
		pr := res
		pr.Profile, pr.Maxima = per[r], nil
		d, err := refineProfile(one(r), pr, one1, firstErr)
		if cerr := ctx.Err(); cerr != nil {
			return BKLDrawsResult{}, cerr
		}
		if err != nil {
			return BKLDrawsResult{}, fmt.Errorf("landmark draw %d: %w", r+1, err)
		}
		out.DrawEll = append(out.DrawEll, d.Ell)
	}
	return out, nil
}
