package bke

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// gaussianGrid draws per points from each unit Gaussian centred on a 3×3
// grid with spacing 10 (the paper's §5 two-sample example).
func gaussianGrid(rng *rand.Rand, per int) *mat.Dense {
	x := mat.NewDense(9*per, 2, nil)
	for c := 0; c < 9; c++ {
		for k := 0; k < per; k++ {
			i := c*per + k
			x.Set(i, 0, 10*float64(c%3)+rng.NormFloat64())
			x.Set(i, 1, 10*float64(c/3)+rng.NormFloat64())
		}
	}
	return x
}

func TestBKLGlobalMaximum(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	rest, z := Split(gaussianGrid(rng, 50), 30, 5)
	res, err := BKL(rest, z, BKLSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Maxima) < 2 {
		t.Fatalf("profile has %d local maxima, want at least 2: %+v", len(res.Maxima), res.Maxima)
	}
	for k, v := range res.Profile {
		if v > res.LogDensity {
			t.Errorf("grid point ℓ = %g has log density %g above the maximum %g", res.Grid[k], v, res.LogDensity)
		}
	}
	// An independent, 4 times finer grid over the same range must not beat
	// the refined maximum either, and must agree on where it is.
	md, err := New(rest, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Log(res.Grid[0]), math.Log(res.Grid[len(res.Grid)-1])
	const fine = 400
	bestFine, bestEll := math.Inf(-1), 0.0
	for k := 0; k < fine; k++ {
		ell := math.Exp(lo + (hi-lo)*float64(k)/(fine-1))
		v, err := md.LogDensity(Hyper{Ell: []float64{ell}, Tau2: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v > bestFine {
			bestFine, bestEll = v, ell
		}
	}
	if bestFine > res.LogDensity+1e-9*math.Abs(res.LogDensity) {
		t.Errorf("fine grid finds %g at ℓ = %g, above BKL's %g at ℓ = %g", bestFine, bestEll, res.LogDensity, res.Ell)
	}
	if math.Abs(math.Log(bestEll/res.Ell)) > (hi-lo)/(fine-1) {
		t.Errorf("fine grid maximum at ℓ = %g, BKL at ℓ = %g", bestEll, res.Ell)
	}
	// The refined maximum is a stationary point.
	var g Grad
	if _, err := md.LogDensity(Hyper{Ell: []float64{res.Ell}, Tau2: 1}, &g); err != nil {
		t.Fatal(err)
	}
	h := 1e-3
	up, _ := md.LogDensity(Hyper{Ell: []float64{res.Ell * math.Exp(h)}, Tau2: 1}, nil)
	down, _ := md.LogDensity(Hyper{Ell: []float64{res.Ell * math.Exp(-h)}, Tau2: 1}, nil)
	curv := (up - 2*res.LogDensity + down) / (h * h) // second derivative in log ℓ
	if slope := g.Ell[0] * res.Ell; math.Abs(slope) > 1e-4*math.Abs(curv) {
		t.Errorf("slope in log ℓ at the maximum %g (curvature %g)", slope, curv)
	}
	t.Logf("BKL ℓ = %.6g, log density %.6f; maxima %+v", res.Ell, res.LogDensity, res.Maxima)
}

func TestBKLSettings(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	rest, z := Split(randMatrix(rng, 80, 1, 1), 8, 1)
	res, err := BKL(rest, z, BKLSettings{Lower: 0.05, Upper: 5, GridPoints: 21, Tau2: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Grid) != 21 || math.Abs(res.Grid[0]-0.05) > 1e-15 || math.Abs(res.Grid[20]-5) > 1e-12 {
		t.Errorf("grid %v", res.Grid)
	}
	md, _ := New(rest, z, Options{})
	v, _ := md.LogDensity(Hyper{Ell: []float64{res.Ell}, Tau2: 0.5}, nil)
	if v != res.LogDensity {
		t.Errorf("log density at ℓ = %g is %g, BKL reports %g", res.Ell, v, res.LogDensity)
	}
	if _, err := BKL(rest, z, BKLSettings{Lower: 2, Upper: 1}); err == nil {
		t.Error("lower > upper accepted")
	}
}

func TestSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	x := randMatrix(rng, 50, 2, 1)
	rest, z := Split(x, 7, 9)
	rest2, z2 := Split(x, 7, 9)
	if !mat.Equal(rest, rest2) || !mat.Equal(z, z2) {
		t.Error("the same seed gave different splits")
	}
	if _, z3 := Split(x, 7, 10); mat.Equal(z, z3) {
		t.Error("seeds 9 and 10 gave the same landmarks")
	}
	if r, _ := rest.Dims(); r != 43 {
		t.Errorf("rest has %d rows", r)
	}
	// Every row of x is in exactly one part, in order.
	ri, zi := 0, 0
	for i := 0; i < 50; i++ {
		row := x.RawRowView(i)
		switch {
		case zi < 7 && mat.Equal(mat.NewVecDense(2, row), mat.NewVecDense(2, z.RawRowView(zi))):
			zi++
		case ri < 43 && mat.Equal(mat.NewVecDense(2, row), mat.NewVecDense(2, rest.RawRowView(ri))):
			ri++
		default:
			t.Fatalf("row %d of x is in neither part, in order", i)
		}
	}
}
