package kst

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Two clusters separated by a valley of low density: NUTS started in the
// left one stays there, while with jump moves the share of draws in the
// right cluster matches its mass by quadrature (within 4 binomial standard
// errors). The same for the proposal density: it integrates to one over
// the box (its Gaussian part truncated) only up to the mass outside, so
// that is checked as ≤ 1.
func TestJumpsVisitFarCluster(t *testing.T) {
	xs := []float64{-4, -3.8, -4.3, 4, 4.2}
	k, _ := kernels.NewRBF([]float64{0.5})
	h := Hyper{Sigma0: 0.5, Alpha: 2, Beta: 0.1}
	m, err := Fit(k, column(xs), h)
	if err != nil {
		t.Fatal(err)
	}
	const box = 8.0
	const ng = 8001
	grid := make([]float64, ng)
	for i := range grid {
		grid[i] = -box + 2*box*float64(i)/(ng-1)
	}
	lq := logpdf(t, m, column(grid))
	var z, right float64
	for i, x := range grid {
		w := math.Exp(lq[i] - lq[ng/2])
		z += w
		if x > 0 {
			right += w
		}
	}
	want := right / z

	q := newJumpProposal(column(xs), box)
	var qz float64
	for _, x := range grid {
		qz += math.Exp(q.logDensity([]float64{x})) * 2 * box / (ng - 1)
	}
	if qz > 1.0001 || qz < 0.9 {
		t.Errorf("the proposal density integrates to %v over the box", qz)
	}

	tm := &targetModel{m: m, box: box}
	const S = 300
	share := func(jumps int) float64 {
		n := 0
		for s := 0; s < S; s++ {
			res, err := hmc.Sample(context.Background(), func() (hmc.Model, error) { return tm, nil }, hmc.Settings{
				Chains: 1, Warmup: 60, Draws: 1, Seed: uint64(100 + s), InitPoint: tm.toU([]float64{-4}), Workers: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			x := tm.toX(res.Chains[0].Draws[0])
			if jumps > 0 {
				x = q.run(m, x, jumps, rand.New(rand.NewPCG(uint64(s), 7)))
			}
			if x[0] > 0 {
				n++
			}
		}
		return float64(n) / S
	}
	se := math.Sqrt(want * (1 - want) / S)
	local, jumped := share(0), share(100)
	if math.Abs(jumped-want) > 4*se {
		t.Errorf("with jumps %.3f of the draws are in the right cluster, quadrature %.3f (se %.3f)", jumped, want, se)
	}
	if math.Abs(local-want) < 4*se {
		t.Errorf("without jumps %.3f, quadrature %.3f: the test no longer shows the local chain's bias", local, want)
	}
	t.Logf("mass right %.3f; NUTS alone %.3f, with 100 jumps %.3f", want, local, jumped)
}
