package kbr

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The pre-image is a stationary point of x ↦ Σ_i w_i k(X_i, x): the
// gradient Σ_i w_i k(X_i, x)(X_i − x)/ℓ² vanishes there.
func TestPreimageIsStationary(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 0, 1, 0.2, 0.3, 1, 2.5, 2.5, 3, 2})
	w := []float64{0.3, 0.3, 0.25, 0.1, 0.05}
	const ell = 0.8
	pt, ok, err := Preimage(rbf(t, ell), x, w, PreimageSettings{})
	if err != nil || !ok {
		t.Fatalf("did not converge: %v", err)
	}
	k := gauss(ell)
	var grad [2]float64
	for i := 0; i < 5; i++ {
		c := w[i] * k(x.RawRowView(i), pt)
		for d := 0; d < 2; d++ {
			grad[d] += c * (x.At(i, d) - pt[d]) / (ell * ell)
		}
	}
	if math.Hypot(grad[0], grad[1]) > 1e-7 {
		t.Errorf("gradient %v at the pre-image %v", grad, pt)
	}
	// It lies in the heavy cluster, not at the weighted mean between the two.
	mean, _ := Mean(x, w, true)
	if pt[0] > 1 || math.Abs(pt[0]-mean[0]) < 0.1 {
		t.Errorf("pre-image %v, weighted mean %v", pt, mean)
	}
}

// Where negative weights dominate the denominator the iteration stops and
// the weighted mean is returned, flagged as not converged.
func TestPreimageFallsBack(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{-1, 0, 1})
	w := []float64{0.75, -1, 0.75} // sum 0.5; at 0 the denominator is 1.5e^{-1/2} − 1 < 0
	pt, ok, err := Preimage(rbf(t, 1), x, w, PreimageSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if ok || pt[0] != 0 {
		t.Errorf("got %v (converged %v), want the weighted mean 0, not converged", pt, ok)
	}
	if _, _, err := Preimage(laplacian(t), x, w, PreimageSettings{}); err == nil {
		t.Error("a Laplacian kernel was accepted")
	}
}
