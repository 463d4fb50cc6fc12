package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distmv"
)

// TestDirichletLogPDF compares the log density with gonum's distmv.Dirichlet
// at random simplexes, and its derivatives in x and α with central finite
// differences.
func TestDirichletLogPDF(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 1))
	for trial := 0; trial < 20; trial++ {
		k := 2 + r.IntN(4)
		alpha := make([]float64, k)
		for i := range alpha {
			alpha[i] = 0.3 + 4*r.Float64()
		}
		x := DirichletRand(r, alpha)
		want := distmv.NewDirichlet(alpha, nil).LogProb(x)
		dx := make([]float64, k)
		da := make([]float64, k)
		got := DirichletLogPDF(x, alpha, dx, da)
		if math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("alpha %v, x %v: logpdf %v, gonum %v", alpha, x, got, want)
		}
		// Steps relative to each xₖ: some draws are near 0.
		fdx := make([]float64, k)
		for i := range x {
			h := 1e-6 * x[i]
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[i] += h
			xm[i] -= h
			fdx[i] = (DirichletLogPDF(xp, alpha, nil, nil) - DirichletLogPDF(xm, alpha, nil, nil)) / (2 * h)
		}
		fda := fd.Gradient(nil, func(a []float64) float64 { return DirichletLogPDF(x, a, nil, nil) }, alpha, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		for i := range x {
			if math.Abs(dx[i]-fdx[i]) > 1e-5*math.Max(1, math.Abs(fdx[i])) {
				t.Errorf("alpha %v, x %v: d/dx%d = %v, finite differences %v", alpha, x, i+1, dx[i], fdx[i])
			}
			if math.Abs(da[i]-fda[i]) > 1e-6*math.Max(1, math.Abs(fda[i])) {
				t.Errorf("alpha %v, x %v: d/dalpha%d = %v, finite differences %v", alpha, x, i+1, da[i], fda[i])
			}
		}
	}
}

// TestDirichletMoments checks the closed-form mean and sd against the
// sample moments of 20000 draws (within 5 standard errors).
func TestDirichletMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 2))
	alpha := []float64{2, 3, 5}
	mean, sd := DirichletMoments(alpha)
	const n = 20000
	cols := make([][]float64, len(alpha))
	for i := 0; i < n; i++ {
		x := DirichletRand(r, alpha)
		if !IsSimplex(x) {
			t.Fatalf("draw %v is not a simplex", x)
		}
		for k := range x {
			cols[k] = append(cols[k], x[k])
		}
	}
	for k := range alpha {
		m, s := stat.MeanStdDev(cols[k], nil)
		if math.Abs(m-mean[k]) > 5*sd[k]/math.Sqrt(n) {
			t.Errorf("element %d: sample mean %v, want %v", k+1, m, mean[k])
		}
		if math.Abs(s-sd[k]) > 0.03*sd[k] {
			t.Errorf("element %d: sample sd %v, want %v", k+1, s, sd[k])
		}
	}
	if want := math.Sqrt(2 * 8 / (100.0 * 11)); math.Abs(sd[0]-want) > 1e-15 {
		t.Errorf("sd of element 1 = %v, want %v", sd[0], want)
	}
}

func TestIsSimplex(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want bool
	}{
		{[]float64{0.2, 0.3, 0.5}, true},
		{[]float64{0.2, 0.3, 0.5 + 1e-10}, true},
		{[]float64{0.2, 0.3, 0.6}, false},
		{[]float64{0, 0.5, 0.5}, false},
		{[]float64{-0.1, 0.6, 0.5}, false},
		{[]float64{math.NaN(), 0.5, 0.5}, false},
	} {
		if got := IsSimplex(c.x); got != c.want {
			t.Errorf("IsSimplex(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}
