package kst

import (
	"context"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/kernels"
)

// NUTS on the sampler target draws from the predictive density: its mean
// and sd match quadrature of q (times the box indicator) within 4 Monte
// Carlo standard errors, for an rbf kernel in a box and for the parabola
// kernel on the whole line.
func TestSamplerTargetMoments(t *testing.T) {
	xs := []float64{-1.1, -0.6, 1.4, 1.6, -0.9}
	rbf, _ := kernels.NewRBF([]float64{0.5})
	for _, c := range []struct {
		k   kernels.Kernel
		box float64
	}{{rbf, 3}, {parabola{}, 0}} {
		m, err := Fit(c.k, column(xs), Hyper{Sigma0: 1, Alpha: 2, Beta: 0.1})
		if err != nil {
			t.Fatal(err)
		}
		// Quadrature on [−L, L]: the box, or wide enough for the parabola's tails.
		L := c.box
		if L == 0 {
			L = 6
		}
		const ng = 4001
		grid := make([]float64, ng)
		for i := range grid {
			grid[i] = -L + 2*L*float64(i)/(ng-1)
		}
		lq := logpdf(t, m, column(grid))
		var z, m1, m2 float64
		for i, x := range grid {
			w := math.Exp(lq[i] - lq[ng/2])
			if i == 0 || i == ng-1 {
				w /= 2
			}
			z += w
			m1 += w * x
			m2 += w * x * x
		}
		mean := m1 / z
		sd := math.Sqrt(m2/z - mean*mean)

		tm := &targetModel{m: m, box: c.box}
		res, err := hmc.Sample(context.Background(), func() (hmc.Model, error) { return tm, nil },
			hmc.Settings{Chains: 2, Warmup: 500, Draws: 2000, Seed: 12, InitPoint: []float64{0}})
		if err != nil {
			t.Fatal(err)
		}
		chains := make([][]float64, len(res.Chains))
		sq := make([][]float64, len(res.Chains))
		for ci, ch := range res.Chains {
			for _, d := range ch.Draws {
				x := tm.toX(d)[0]
				chains[ci] = append(chains[ci], x)
				sq[ci] = append(sq[ci], (x-mean)*(x-mean))
			}
		}
		var got, gotSq float64
		var n float64
		for ci := range chains {
			for i := range chains[ci] {
				got += chains[ci][i]
				gotSq += sq[ci][i]
				n++
			}
		}
		got /= n
		gotSd := math.Sqrt(gotSq / n)
		if se := hmc.MCSEMean(chains); math.Abs(got-mean) > 4*se {
			t.Errorf("%s box %v: mean %v, quadrature %v (MCSE %v)", c.k, c.box, got, mean, se)
		}
		// sd via the second central moment's MCSE, propagated.
		if se := hmc.MCSEMean(sq) / (2 * sd); math.Abs(gotSd-sd) > 4*se {
			t.Errorf("%s box %v: sd %v, quadrature %v (MCSE %v)", c.k, c.box, gotSd, sd, se)
		}
	}
}

func TestFantasy(t *testing.T) {
	rbf, _ := kernels.NewRBF([]float64{1})
	h := Hyper{Sigma0: 1, Alpha: 3, Beta: 0.01}
	s := FantasySettings{N: 8, Dim: 2, Box: 5, Warmup: 100, Seed: 3}
	a, err := Fantasy(context.Background(), rbf, h, s)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Fantasy(context.Background(), rbf, h, s)
	if !mat.Equal(a, b) {
		t.Error("the same seed gave different fantasy data")
	}
	if a.At(0, 0) != 0 || a.At(0, 1) != 0 {
		t.Errorf("x_1 = %v, want the origin", a.RawRowView(0))
	}
	for i := 1; i < 8; i++ {
		for _, v := range a.RawRowView(i) {
			if !(math.Abs(v) < 5) {
				t.Errorf("point %d = %v is outside the box", i+1, a.RawRowView(i))
			}
		}
	}
	s.Box = 0
	if _, err := Fantasy(context.Background(), rbf, h, s); err == nil || !strings.Contains(err.Error(), "improper") {
		t.Errorf("no box with rbf: %v, want an error saying the density is improper", err)
	}
}
