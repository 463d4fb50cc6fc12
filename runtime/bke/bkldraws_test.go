package bke

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// One landmark draw is BKL on the first split, exactly.
func TestBKLDrawsOneIsBKL(t *testing.T) {
	x := gaussianGrid(rand.New(rand.NewPCG(3, 4)), 20)
	rest, z := Split(x, 15, 9)
	want, err := BKL(rest, z, BKLSettings{Tau2: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	got, err := BKLDraws(context.Background(), x, 15, 1, 9, BKLSettings{Tau2: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	if got.Ell != want.Ell || got.LogDensity != want.LogDensity || len(got.DrawEll) != 1 {
		t.Errorf("one draw: ℓ %v logp %v, BKL ℓ %v logp %v", got.Ell, got.LogDensity, want.Ell, want.LogDensity)
	}
}

// The profile of several draws is the mean of the draws' log densities
// (checked at every grid point against models built from DrawSeed's
// splits), its maximum is not beaten by any grid point, and each draw's
// own choice is the best point of its own profile.
func TestBKLDrawsMeanProfile(t *testing.T) {
	x := gaussianGrid(rand.New(rand.NewPCG(5, 6)), 20)
	const m, draws, seed = 12, 3, 21
	res, err := BKLDraws(context.Background(), x, m, draws, seed, BKLSettings{Tau2: 1, GridPoints: 30})
	if err != nil {
		t.Fatal(err)
	}
	var mds []*Model
	for r := 0; r < draws; r++ {
		rest, z := Split(x, m, DrawSeed(seed, r))
		md, err := New(rest, z, Options{})
		if err != nil {
			t.Fatal(err)
		}
		mds = append(mds, md)
	}
	bestPer := make([]float64, draws)
	bestEll := make([]float64, draws)
	for r := range bestPer {
		bestPer[r] = math.Inf(-1)
	}
	for k, ell := range res.Grid {
		var sum float64
		for r, md := range mds {
			v, err := md.LogDensity(Hyper{Ell: []float64{ell}, Tau2: 1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum += v
			if v > bestPer[r] {
				bestPer[r], bestEll[r] = v, ell
			}
		}
		if d := math.Abs(res.Profile[k] - sum/draws); d > 1e-9*math.Abs(sum) {
			t.Errorf("ℓ = %g: profile %g, mean of the draws %g", ell, res.Profile[k], sum/draws)
		}
		if res.Profile[k] > res.LogDensity {
			t.Errorf("grid point ℓ = %g beats the maximum: %g > %g", ell, res.Profile[k], res.LogDensity)
		}
	}
	step := res.Grid[1] / res.Grid[0]
	for r, e := range res.DrawEll {
		if e < bestEll[r]/step || e > bestEll[r]*step {
			t.Errorf("draw %d chose ℓ = %g, its grid's best is %g", r, e, bestEll[r])
		}
	}
}

// countdown is a context whose Err is nil for its first left calls and
// context.Canceled from then on: a cancellation at a known check.
type countdown struct {
	context.Context
	left, calls int
}

func (c *countdown) Err() error {
	c.calls++
	if c.calls > c.left {
		return context.Canceled
	}
	return nil
}

// BKLDraws checks its context before each model it builds and each log
// density it evaluates, and stops at the first check that finds it done.
func TestBKLDrawsCancelled(t *testing.T) {
	x := gaussianGrid(rand.New(rand.NewPCG(7, 8)), 20)
	for _, left := range []int{0, 2, 10, 40} {
		ctx := &countdown{Context: context.Background(), left: left}
		_, err := BKLDraws(ctx, x, 12, 3, 1, BKLSettings{Tau2: 1, GridPoints: 30})
		if err != context.Canceled || ctx.calls != left+1 {
			t.Errorf("cancelled at check %d: err %v after %d checks", left+1, err, ctx.calls)
		}
	}
}
