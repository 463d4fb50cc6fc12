package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gridSamples draws the BKE paper's Figure 2 problem (after Gretton et al.
// 2012b's blobs): per points around each centre of a 3 × 3 grid with
// spacing 10; P's are unit Gaussians, Q's have covariance eigenvalues ε and
// 1 with the eigenvectors rotated by 45°.
func gridSamples(rng *rand.Rand, eps float64, per int) (*mat.Dense, *mat.Dense) {
	p := mat.NewDense(9*per, 2, nil)
	q := mat.NewDense(9*per, 2, nil)
	c, s := math.Cos(math.Pi/4), math.Sin(math.Pi/4)
	for k := 0; k < 9; k++ {
		cx, cy := 10*float64(k%3), 10*float64(k/3)
		for i := 0; i < per; i++ {
			r := k*per + i
			p.Set(r, 0, cx+rng.NormFloat64())
			p.Set(r, 1, cy+rng.NormFloat64())
			u, v := math.Sqrt(eps)*rng.NormFloat64(), rng.NormFloat64()
			q.Set(r, 0, cx+c*u-s*v)
			q.Set(r, 1, cy+s*u+c*v)
		}
	}
	return p, q
}

// TestAggregateRejectsTheGrid: the aggregated test with its default
// settings rejects the ε = 10 grid problem at n = 900 per sample, where a
// family around the median heuristic does not.
func TestAggregateRejectsTheGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	p, q := gridSamples(rng, 10, 100)
	r, err := MMDAggregateTest(context.Background(), p, q, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("p = %v, threshold %v, bandwidths %.3g, p-values %.3g, rejected %v", r.PValue, r.Threshold, r.Bandwidths, r.PValues, r.Rejected)
	if r.PValue > 0.05 {
		t.Errorf("the aggregate test does not reject the ε = 10 grid: p = %v", r.PValue)
	}
}
