package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// denseLowRank is log N(y | 0, Q + σ²I) with Q = K_nz K_zz⁻¹ K_zn formed
// densely.
func denseLowRank(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) float64 {
	n, _ := x.Dims()
	kzz, _ := kernels.Gram(k, z)
	kzn, _ := kernels.Cross(k, z, x)
	var inv mat.Dense
	if err := inv.Inverse(kzz); err != nil {
		panic(err)
	}
	var t, q mat.Dense
	t.Mul(&inv, kzn)
	q.Mul(kzn.T(), &t)
	for i := 0; i < n; i++ {
		q.Set(i, i, q.At(i, i)+noise)
	}
	var cinv mat.Dense
	if err := cinv.Inverse(&q); err != nil {
		panic(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(&q)
	return -0.5*mat.Inner(yv, &cinv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
}

func TestLowRankMatchesDenseAndGradient(t *testing.T) {
	x, y := testData(40, 2, 41)
	z, _ := testData(7, 2, 42)
	rbf, _ := kernels.NewRBF([]float64{0.9, 1.4})
	lin, _ := kernels.NewLinear(0.5)
	a, _ := kernels.NewScaled(1.3, rbf)
	b, _ := kernels.NewScaled(0.4, lin)
	k, _ := kernels.NewSum(a, b)
	noise := 0.2
	grad := make([]float64, k.NumHyper()+1)
	got, err := LowRankLogMarginal(k, x, z, y, noise, grad)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseLowRank(k, x, z, y, noise); math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
		t.Fatalf("low-rank log marginal %.10g, dense %.10g", got, want)
	}
	h0 := k.Hyper(nil)
	names := append(k.HyperNames(), "noise")
	for i := range grad {
		f := func(delta float64) float64 {
			if i == len(h0) {
				return denseLowRank(k, x, z, y, noise+delta)
			}
			h := append([]float64(nil), h0...)
			h[i] += delta
			kk, _ := k.WithHyper(h)
			return denseLowRank(kk, x, z, y, noise)
		}
		const eps = 1e-6
		fd := (f(eps) - f(-eps)) / (2 * eps)
		if math.Abs(fd-grad[i]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("∂/∂%s = %.8g, finite difference %.8g", names[i], grad[i], fd)
		}
	}
}

// TestLowRankAccuracy measures how far the Nyström marginal likelihood is
// from the exact one with k-means inducing points (the figures quoted in
// docs/language.md): n = 1000 points in D = 3 with an rbf kernel.
func TestLowRankAccuracy(t *testing.T) {
	x, y := testData(1000, 3, 43)
	rbf, _ := kernels.NewRBF([]float64{1.5, 1.5, 1.5})
	exact, err := LogMarginal(rbf, x, y, 0.09, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := math.Inf(1)
	for _, m := range []int{50, 100, 200} {
		z, err := kernels.Landmarks(x, m, 1, kernels.LandmarkMethod("kmeans"))
		if err != nil {
			t.Fatal(err)
		}
		lr, err := LowRankLogMarginal(rbf, x, z, y, 0.09, nil)
		if err != nil {
			t.Fatal(err)
		}
		gap := math.Abs(lr-exact) / math.Abs(exact)
		t.Logf("m = %d: exact %.4f, Nyström %.4f, relative gap %.2g", m, exact, lr, gap)
		if gap > prev*1.01 {
			t.Errorf("m = %d: the gap %.3g grew from %.3g", m, gap, prev)
		}
		prev = gap
	}
	if prev > 0.01 {
		t.Errorf("relative gap %.3g with 200 inducing points, want below 1%%", prev)
	}
}

// TestLowRankPredictExactWithAllPoints: with every training input as an
// inducing point the Nyström model is the exact one, and so is its
// predictive, SGPRPredict's (compared with linalg.GPPredict).
func TestLowRankPredictExactWithAllPoints(t *testing.T) {
	x, y := testData(30, 2, 44)
	xnew, _ := testData(5, 2, 45)
	rbf, _ := kernels.NewRBF([]float64{0.9, 1.4})
	k, _ := kernels.NewScaled(1.3, rbf)
	mean, fvar, err := SGPRPredict(k, x, x, y, 0.1, xnew)
	if err != nil {
		t.Fatal(err)
	}
	ch, _, _, err := Factor(k, x, []float64{0.1})
	if err != nil {
		t.Fatal(err)
	}
	wm, cov, err := linalg.GPPredict(k, ch, linalg.RowMajor(x), 2, mat.NewVecDense(30, y), xnew)
	if err != nil {
		t.Fatal(err)
	}
	for j := range mean {
		if math.Abs(mean[j]-wm[j]) > 1e-6 || math.Abs(fvar[j]-cov.At(j, j)) > 1e-6 {
			t.Errorf("point %d: low-rank mean %.8g var %.8g, exact %.8g and %.8g", j, mean[j], fvar[j], wm[j], cov.At(j, j))
		}
	}
}
