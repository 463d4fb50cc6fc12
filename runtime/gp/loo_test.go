package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// TestLOOAgainstRefits: the closed-form leave-one-out densities equal n
// brute-force refits — for each i, the GP predictive at xᵢ from the other
// n − 1 points (mean k*ᵀC₋ᵢ⁻¹y₋ᵢ, variance k** − k*ᵀC₋ᵢ⁻¹k* + σ²), each
// with its own factorisation — to 1e-9.
func TestLOOAgainstRefits(t *testing.T) {
	r := rng.New(11, testStream.Index(41))
	const n, noise = 25, 0.09
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := 4*r.Float64()-2, 4*r.Float64()-2
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y[i] = math.Sin(2*a) + 0.5*b + 0.3*r.NormFloat64()
	}
	k, err := kernels.NewRBF([]float64{0.8})
	if err != nil {
		t.Fatal(err)
	}
	got, err := LOO(k, x, y, noise)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		var keep []int
		for j := 0; j < n; j++ {
			if j != i {
				keep = append(keep, j)
			}
		}
		xr := mat.NewDense(n-1, 2, nil)
		yr := make([]float64, n-1)
		for a, j := range keep {
			xr.SetRow(a, x.RawRowView(j))
			yr[a] = y[j]
		}
		K, err := kernels.Gram(k, xr)
		if err != nil {
			t.Fatal(err)
		}
		C := mat.NewSymDense(n-1, nil)
		C.CopySym(K)
		for a := 0; a < n-1; a++ {
			C.SetSym(a, a, C.At(a, a)+noise)
		}
		var ch mat.Cholesky
		if !ch.Factorize(C) {
			t.Fatal("C₋ᵢ not positive definite")
		}
		xi := mat.NewDense(1, 2, x.RawRowView(i))
		ks, err := kernels.Cross(k, xr, xi)
		if err != nil {
			t.Fatal(err)
		}
		kss, _ := kernels.Gram(k, xi)
		kv := mat.NewVecDense(n-1, mat.Col(nil, 0, ks))
		var w, beta mat.VecDense
		if err := ch.SolveVecTo(&w, kv); err != nil {
			t.Fatal(err)
		}
		if err := ch.SolveVecTo(&beta, mat.NewVecDense(n-1, yr)); err != nil {
			t.Fatal(err)
		}
		mu := mat.Dot(kv, &beta)
		v := kss.At(0, 0) - mat.Dot(kv, &w) + noise
		want := -0.5*math.Log(2*math.Pi*v) - (y[i]-mu)*(y[i]-mu)/(2*v)
		if math.Abs(got[i]-want) > 1e-9 {
			t.Errorf("point %d: closed form %.12f, refit %.12f", i+1, got[i], want)
		}
	}
}
