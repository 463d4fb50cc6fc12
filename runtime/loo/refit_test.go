package loo

import (
	"context"
	"math"
	"testing"
)

// TestRefit replaces two points' estimates and checks every estimate
// against its definition recomputed here: sums of the pointwise values and
// √N·sd with the N − 1 variance, k̂ 0 for the refitted points, and Bad
// recounted.
func TestRefit(t *testing.T) {
	y := []float64{0.3, -1.2, 0.8, 9.5, 0.1, -0.4, 1.7, 0.2}
	ll := llmat(y, makeDraws(1000, 0.9, 0.4, 1, 0.2))
	l, err := Compute(context.Background(), ll, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{3, 6}
	elpd, lpd := []float64{-40.5, -2.25}, []float64{-30.1, -2.0}
	before := append([]float64(nil), l.ElpdI...)
	l.Refit(idx, elpd, lpd)
	sumSE := func(x []float64) (float64, float64) {
		n := float64(len(x))
		s := 0.0
		for _, v := range x {
			s += v
		}
		ss := 0.0
		for _, v := range x {
			ss += (v - s/n) * (v - s/n)
		}
		return s, math.Sqrt(n * ss / (n - 1))
	}
	for j, i := range idx {
		if l.ElpdI[i] != elpd[j] || l.PI[i] != lpd[j]-elpd[j] || l.ICI[i] != -2*elpd[j] || l.K[i] != 0 {
			t.Errorf("point %d: elpd %v p %v ic %v k %v", i, l.ElpdI[i], l.PI[i], l.ICI[i], l.K[i])
		}
	}
	for i := range y {
		if i != 3 && i != 6 && l.ElpdI[i] != before[i] {
			t.Errorf("point %d changed: %v, was %v", i, l.ElpdI[i], before[i])
		}
	}
	for _, c := range []struct {
		name string
		e    Estimate
		x    []float64
	}{{"elpd", l.Elpd, l.ElpdI}, {"p", l.P, l.PI}, {"ic", l.IC, l.ICI}} {
		v, se := sumSE(c.x)
		if math.Abs(c.e.Value-v) > 1e-12 || math.Abs(c.e.SE-se) > 1e-12 {
			t.Errorf("%s: %v ± %v, want %v ± %v", c.name, c.e.Value, c.e.SE, v, se)
		}
	}
	bad := 0
	for _, k := range l.K {
		if k > l.KThreshold {
			bad++
		}
	}
	if l.Bad != bad {
		t.Errorf("Bad %d, want %d", l.Bad, bad)
	}
}
