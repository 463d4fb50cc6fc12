package bke

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDegenerate(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	x, z := Split(randMatrix(rng, 220, 1, 1), 20, 3)
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h    Hyper
		want Degeneracy
		amp  float64
	}{
		{Hyper{Ell: []float64{3200}, Tau2: 1e-12}, ConstantEmbedding, 1},
		{Hyper{Ell: []float64{5000}, Amp: 2, Tau2: 1e-14}, ConstantEmbedding, 2},
		{Hyper{Ell: []float64{1}, Tau2: 1}, NotDegenerate, 1},
		{Hyper{Ell: []float64{30}, Tau2: 1e-3}, NotDegenerate, 1},
		{Hyper{Ell: []float64{1}, Tau2: 1e-40}, NoiseBelowRounding, 1},
		{Hyper{Ell: []float64{1e-7}, Tau2: 1}, Underflow, 1},
	} {
		got := md.Degenerate(c.h)
		if got.Kind != c.want {
			t.Errorf("%+v: Degenerate = %+v, want kind %v", c.h, got, c.want)
		}
		if got.Kind != NotDegenerate && (got.Amp != c.amp || got.Ell[0] != c.h.Ell[0] || got.Tau2 != c.h.Tau2) {
			t.Errorf("%+v: Degenerate reports amp %v, ell %v, tau2 %v", c.h, got.Amp, got.Ell, got.Tau2)
		}
	}
}

// TestDegenerateRidge checks the pathology Degenerate warns of: with τ² at
// its best value for each ℓ, the log density keeps rising as ℓ grows into
// the degenerate region, while with τ² fixed at 1 it falls.
func TestDegenerateRidge(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	x, z := Split(randMatrix(rng, 120, 1, 1), 10, 4)
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, m := float64(md.n), float64(md.m)
	prevFree, prevFixed := math.Inf(-1), math.Inf(1)
	for _, ell := range []float64{30, 100, 300, 1000} {
		p, err := md.prepare(Hyper{Ell: []float64{ell}}, false)
		if err != nil {
			t.Fatal(err)
		}
		res, err := md.run(p, false, false)
		if err != nil {
			t.Fatal(err)
		}
		tau2 := res.css / (m * (n - 1)) // the maximiser of −½ CSS/τ² − ½ m(n−1) log τ²
		free, err := md.LogDensity(Hyper{Ell: []float64{ell}, Tau2: tau2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		fixed, err := md.LogDensity(Hyper{Ell: []float64{ell}, Tau2: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(free > prevFree) || !(fixed < prevFixed) {
			t.Errorf("ell = %g: best-tau2 profile %g (previous %g), tau2 = 1 profile %g (previous %g)", ell, free, prevFree, fixed, prevFixed)
		}
		prevFree, prevFixed = free, fixed
	}
}
