package kernels

import (
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func maxAbsDiff(a mat.Matrix, b mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

func TestIncompleteCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randomPoints(rng, 200, 2)
	k := must(NewRBF([]float64{1.5}))
	kfull, _ := Gram(k, x)
	for _, tol := range []float64{1e-1, 1e-4, 1e-8} {
		l, piv, err := IncompleteCholesky(k, x, tol, 0)
		if err != nil {
			t.Fatal(err)
		}
		var llt mat.Dense
		llt.Mul(l, l.T())
		if e := maxAbsDiff(kfull, &llt); e > tol {
			t.Errorf("tol %g: max |K − LLᵀ| = %g with rank %d", tol, e, len(piv))
		}
		t.Logf("tol %g: rank %d", tol, len(piv))
	}
	l, piv, _ := IncompleteCholesky(k, x, 0, 7)
	if _, r := l.Dims(); r != 7 || len(piv) != 7 {
		t.Errorf("maxRank 7 gave rank %d", r)
	}
}

func TestNystrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x := randomPoints(rng, 150, 2)
	k := must(NewRBF([]float64{1.2}))
	kfull, _ := Gram(k, x)
	prev := math.Inf(1)
	for _, m := range []int{5, 20, 60} {
		z, _ := Landmarks(x, m, 3, KMeans)
		phi, err := Nystrom(k, x, z)
		if err != nil {
			t.Fatal(err)
		}
		var approx mat.Dense
		approx.Mul(phi, phi.T())
		e := maxAbsDiff(kfull, &approx)
		if e >= prev {
			t.Errorf("m = %d: error %g did not fall below %g", m, e, prev)
		}
		prev = e
	}
	// On the data itself the approximation is exact up to the jitter.
	phi, _ := Nystrom(k, x, x)
	var approx mat.Dense
	approx.Mul(phi, phi.T())
	if e := maxAbsDiff(kfull, &approx); e > 1e-6 {
		t.Errorf("Nyström on all the data: error %g", e)
	}
}

func TestRandomFourierFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x := randomPoints(rng, 60, 3)
	kernels := map[string]Kernel{
		"rbf ard":   must(NewRBF([]float64{0.8, 1.3, 2})),
		"laplacian": must(NewLaplacian([]float64{1.5})),
		"matern32":  must(NewMatern(3, []float64{1.2})),
		"2*mat52":   must(NewScaled(2, must(NewMatern(5, []float64{1, 2, 1.5})))),
	}
	for _, name := range slices.Sorted(maps.Keys(kernels)) {
		k := kernels[name]
		kfull, _ := Gram(k, x)
		rms := func(features int) float64 {
			total := 0.0
			for s := uint64(0); s < 8; s++ {
				r, err := NewRFF(k, 3, features, s)
				if err != nil {
					t.Fatal(err)
				}
				phi, _ := r.Features(x)
				var approx mat.Dense
				approx.Mul(phi, phi.T())
				var diff mat.Dense
				diff.Sub(kfull, &approx)
				total += mat.Norm(&diff, 2) * mat.Norm(&diff, 2) / (60 * 60)
			}
			return math.Sqrt(total / 8)
		}
		small, large := rms(200), rms(3200)
		// 16 times the features: the error should shrink about 4-fold.
		if ratio := small / large; ratio < 2.5 || ratio > 6.5 {
			t.Errorf("%s: RMS error %g with 200 features, %g with 3200: ratio %.2f, want ≈ 4", name, small, large, ratio)
		}
	}
	if _, err := NewRFF(must(NewRQ([]float64{1}, 1)), 1, 10, 1); err == nil {
		t.Error("rq features should be refused")
	}
}

func TestMedianHeuristicAndLandmarks(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{0, 1, 3, 7})
	// Distances: 1, 3, 7, 2, 6, 4 → sorted 1 2 3 4 6 7, median 3.5.
	if m, _ := MedianHeuristic(x, 1); m != 3.5 {
		t.Errorf("median heuristic %v, want 3.5", m)
	}
	rng := rand.New(rand.NewPCG(17, 18))
	big := randomPoints(rng, 5000, 2)
	sub, _ := MedianHeuristic(big, 1)
	// The exact median of the last 2000 rows (a different sample of the
	// same distribution) must agree to a few percent.
	part := mat.NewDense(2000, 2, nil)
	for i := 0; i < 2000; i++ {
		part.SetRow(i, big.RawRowView(4999-i))
	}
	exact, _ := MedianHeuristic(part, 1)
	if math.Abs(sub-exact)/exact > 0.03 {
		t.Errorf("subsampled median %v, another subsample's %v", sub, exact)
	}
	for _, method := range []LandmarkMethod{RandomRows, KMeans} {
		z, err := Landmarks(big, 10, 4, method)
		if err != nil {
			t.Fatal(err)
		}
		if r, c := z.Dims(); r != 10 || c != 2 {
			t.Errorf("%s landmarks are %d×%d", method, r, c)
		}
	}
	if _, err := Landmarks(x, 5, 1, RandomRows); err == nil {
		t.Error("5 landmarks from 4 rows should fail")
	}
}
