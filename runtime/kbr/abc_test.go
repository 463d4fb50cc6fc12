package kbr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Rejection ABC on a normal–normal model: θ ~ N(0, 1), y | θ ~ N(θ, 0.5²).
// Every accepted simulation was within the tolerance, and with a small
// tolerance the accepted mean is near the exact posterior mean y/1.25.
func TestRejectionABC(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 0x616263)) // "abc"
	draw := func(k int) (*mat.Dense, error) { return randMat(r, k, 1, 1), nil }
	var lastY, lastTheta []*mat.Dense
	sim := func(th *mat.Dense) (*mat.Dense, error) {
		k, _ := th.Dims()
		y := randMat(r, k, 1, 0.5)
		y.Add(y, th)
		lastY, lastTheta = append(lastY, y), append(lastTheta, th)
		return y, nil
	}
	obs := mat.NewDense(2, 1, []float64{0.8, -0.3})
	res, err := Rejection(draw, sim, obs, ABCSettings{Tol: 0.05, Accept: 2000})
	if err != nil {
		t.Fatal(err)
	}
	// Check acceptance against the recorded simulations: the accepted θ
	// are exactly the ones whose y fell within the tolerance, in order,
	// up to the first 2000.
	var want []float64
	for b := range lastY {
		for i := 0; i < lastY[b].RawMatrix().Rows && len(want) < 2000; i++ {
			if math.Abs(lastY[b].At(i, 0)-0.8) <= 0.05 {
				want = append(want, lastTheta[b].At(i, 0))
			}
		}
	}
	got := res.Accepted[0].RawMatrix().Data
	if len(got) != len(want) {
		t.Fatalf("accepted %d, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("accepted θ %d = %v, want %v", i, got[i], want[i])
		}
	}
	for j, y := range []float64{0.8, -0.3} {
		var m float64
		for _, v := range res.Accepted[j].RawMatrix().Data {
			m += v
		}
		m /= float64(len(res.Accepted[j].RawMatrix().Data))
		// 2000 draws of posterior sd 0.45: standard error 0.01.
		if math.Abs(m-y/1.25) > 0.04 {
			t.Errorf("y = %v: ABC mean %.3f, exact %.3f", y, m, y/1.25)
		}
	}
	if _, err := Rejection(draw, sim, mat.NewDense(1, 1, []float64{50}), ABCSettings{Tol: 0.01, MaxSims: 3000}); err == nil {
		t.Error("an unreachable observation did not fail")
	}
}
