package kst

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// FantasySettings configure Fantasy. Box is required for shift-invariant
// kernels; zero Warmup means 200.
type FantasySettings struct {
	// N is the number of points and Dim their dimension.
	N, Dim int
	// Box > 0 restricts every draw to [−Box, Box]^Dim (through the
	// transform x = Box·tanh(u)). A shift-invariant kernel's predictive
	// density tends to a positive constant far from the data, so it is
	// improper on R^Dim and can only be sampled on a bounded region.
	Box float64
	// Warmup is the number of NUTS warm-up iterations for each point.
	Warmup int
	// Jumps is the number of independence Metropolis–Hastings steps after
	// each point's NUTS draw (0: none). NUTS started at the previous point
	// explores locally and, between modes separated by low density, stays
	// in the previous point's cluster; the jumps propose from a proposal
	// that covers every cluster and the whole box (see jump.go), so the
	// clusters are visited in proportion to their mass.
	Jumps int
	// Seed seeds the sampler of every point (stream rng.Fantasy).
	Seed uint64
}

// Fantasy draws fantasy data from the kernel Student-t model (the paper's
// §2.4 and Figure 2): x_1 = 0, then each x_n from the predictive density
// q(x | x_1..x_{n−1}), by one NUTS chain (package hmc) started at x_{n−1},
// warmed up and then drawn once. It returns the N×Dim points.
func Fantasy(ctx context.Context, k kernels.Kernel, h Hyper, s FantasySettings) (*mat.Dense, error) {
	if s.N < 1 || s.Dim < 1 {
		return nil, fmt.Errorf("fantasy: needs at least one point of dimension at least 1, got %d of dimension %d", s.N, s.Dim)
	}
	if kd := k.Dim(); kd != 0 && kd != s.Dim {
		return nil, fmt.Errorf("fantasy: %s has %d lengthscales but the points have dimension %d", k, kd, s.Dim)
	}
	if s.Box < 0 || math.IsNaN(s.Box) || math.IsInf(s.Box, 0) {
		return nil, fmt.Errorf("fantasy: box must be positive and finite, got %v", s.Box)
	}
	if s.Box == 0 && ShiftInvariant(k) {
		return nil, fmt.Errorf("fantasy: with the shift-invariant kernel %s the predictive density tends to a positive constant far from the data, so it is improper; give box: B to draw on [−B, B]^%d", k, s.Dim)
	}
	if err := h.Check(1, s.Dim); err != nil {
		return nil, fmt.Errorf("fantasy: %v", err)
	}
	if s.Warmup <= 0 {
		s.Warmup = 200
	}
	if s.Jumps < 0 {
		return nil, fmt.Errorf("fantasy: jumps must be 0 or more, got %d", s.Jumps)
	}
	seeds := rng.New(s.Seed, rng.Fantasy)
	out := mat.NewDense(s.N, s.Dim, nil)
	for n := 1; n < s.N; n++ {
		m, err := Fit(k, out.Slice(0, n, 0, s.Dim).(*mat.Dense), h)
		if err != nil {
			return nil, fmt.Errorf("fantasy: point %d: %v", n+1, err)
		}
		tm := &targetModel{m: m, box: s.Box}
		init := tm.toU(out.RawRowView(n - 1))
		res, err := hmc.Sample(ctx, func() (hmc.Model, error) { return tm, nil }, hmc.Settings{
			Chains: 1, Warmup: s.Warmup, Draws: 1, Seed: seeds.Uint64(), InitPoint: init, Workers: 1,
		})
		if err != nil {
			return nil, fmt.Errorf("fantasy: point %d: %v", n+1, err)
		}
		x := tm.toX(res.Chains[0].Draws[0])
		if s.Jumps > 0 {
			jp := newJumpProposal(out.Slice(0, n, 0, s.Dim).(*mat.Dense), s.Box)
			x = jp.run(m, x, s.Jumps, rng.New(seeds.Uint64(), rng.Fantasy))
		}
		out.SetRow(n, x)
	}
	return out, nil
}

// targetModel is a fitted density as a sampler's target, on the box's
// unconstrained scale when there is a box.
type targetModel struct {
	m   *Model
	box float64
}

func (t *targetModel) Dim() int { return t.m.d }

func (t *targetModel) toX(u []float64) []float64 {
	if t.box == 0 {
		return append([]float64(nil), u...)
	}
	x := make([]float64, len(u))
	for i, v := range u {
		x[i] = t.box * math.Tanh(v)
	}
	return x
}

func (t *targetModel) toU(x []float64) []float64 {
	if t.box == 0 {
		return append([]float64(nil), x...)
	}
	u := make([]float64, len(x))
	for i, v := range x {
		u[i] = math.Atanh(v / t.box)
	}
	return u
}

// LogDensity is log q(x(u)) + log|dx/du|, log|dx/du| = Σ log(B(1 − tanh²u)).
func (t *targetModel) LogDensity(grad, u []float64) (float64, error) {
	x := t.toX(u)
	lp := t.m.LogPDFGrad(grad, x)
	if t.box == 0 {
		return lp, nil
	}
	for i, v := range u {
		th := math.Tanh(v)
		sech2 := 1 - th*th
		if sech2 == 0 {
			return math.Inf(-1), nil // at the edge of the box in double precision
		}
		grad[i] = grad[i]*t.box*sech2 - 2*th
		lp += math.Log(t.box * sech2)
	}
	return lp, nil
}
