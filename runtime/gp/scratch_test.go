package gp

import (
	"math"
	"slices"
	"testing"
)

// TestSquaresRecycled: Laplace's approximation on recycled scratch arrays
// (square) gives the log marginal and its gradient of a run on fresh ones
// (recycle false) to the bit, with the pool first filled with arrays of
// NaN, for every likelihood of laplaceLiks (the Student-t outlier takes
// the LU branch). A scratch array read before it is written, were square
// to stop clearing, would fail it; one released while still in use fails
// it when the pool hands that array out again before the use.
func TestSquaresRecycled(t *testing.T) {
	for _, tc := range laplaceLiks {
		k, x, y := laplaceProblem(t, 12, tc.lik, tc.outlier)
		grad := make([]float64, k.NumHyper()+len(tc.lik.Params))
		recycle = false
		want, err := NonGaussian(Settings{Approx: LaplaceApprox{}}, k, x, y, tc.lik, grad)
		recycle = true
		if err != nil {
			t.Fatal(err)
		}
		wantGrad := slices.Clone(grad)
		for range 8 {
			bad := make([]float64, 12*12)
			for i := range bad {
				bad[i] = math.NaN()
			}
			release(bad)
		}
		got, err := NonGaussian(Settings{Approx: LaplaceApprox{}}, k, x, y, tc.lik, grad)
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(got) != math.Float64bits(want) || !slices.EqualFunc(grad, wantGrad, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
			t.Errorf("%s: recycled %v %v, fresh %v %v", tc.name, got, grad, want, wantGrad)
		}
	}
}
