package bke

import (
	"math"
	"math/rand/v2"
	"strings"
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
		want bool
		says []string
	}{
		{Hyper{Ell: []float64{3200}, Tau2: 1e-12}, true, []string{"lengthscale 3.2e3 is so large", "≈ 1", "fix tau2"}},
		{Hyper{Ell: []float64{5000}, Amp: 2, Tau2: 1e-14}, true, []string{"5e3", "≈ 2"}},
		{Hyper{Ell: []float64{1}, Tau2: 1}, false, nil},
		{Hyper{Ell: []float64{30}, Tau2: 1e-3}, false, nil},
		{Hyper{Ell: []float64{1}, Tau2: 1e-40}, true, []string{"tau2 = 1e-40", "rounding"}},
		{Hyper{Ell: []float64{1e-7}, Tau2: 1}, true, []string{"so small", "underflows"}},
	} {
		got, msg := md.Degenerate(c.h)
		if got != c.want {
			t.Errorf("%+v: Degenerate = %v (%q), want %v", c.h, got, msg, c.want)
		}
		if !got && msg != "" {
			t.Errorf("%+v: message %q without degeneracy", c.h, msg)
		}
		for _, s := range c.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%+v: message %q does not say %q", c.h, msg, s)
			}
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
