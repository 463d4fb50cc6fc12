package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// denseFITC is log N(y | 0, Q + diag(K − Q) + σ²I) with Q formed densely
// (K_zz jittered as the Nyström path's factor is), by an LU inverse and
// determinant.
func denseFITC(k kernels.Kernel, x, z *mat.Dense, y []float64, noise float64) float64 {
	n, _ := x.Dims()
	m, _ := z.Dims()
	kzz, _ := kernels.Gram(k, z)
	kzn, _ := kernels.Cross(k, z, x)
	jit := 0.0
	for i := 0; i < m; i++ {
		jit += kzz.At(i, i)
	}
	jit *= linalg.JitterStart / float64(m)
	for i := 0; i < m; i++ {
		kzz.SetSym(i, i, kzz.At(i, i)+jit)
	}
	var inv, t, c, cinv mat.Dense
	if err := inv.Inverse(kzz); err != nil {
		panic(err)
	}
	t.Mul(&inv, kzn)
	c.Mul(kzn.T(), &t)
	for i := 0; i < n; i++ {
		xi := x.RawRowView(i)
		c.Set(i, i, k.Eval(xi, xi)+noise)
	}
	if err := cinv.Inverse(&c); err != nil {
		panic(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(&c)
	return -0.5*mat.Inner(yv, &cinv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
}

// TestFITCMatchesDenseAndGradient checks the streamed FITC marginal (in
// blocks of 23 rows) against the dense one at n = 90, m = 8, and its
// gradient in every hyperparameter and the noise variance against central
// differences of the dense value; with z = x it is the exact marginal.
func TestFITCMatchesDenseAndGradient(t *testing.T) {
	defer func(b int) { sgprBlock = b }(sgprBlock)
	sgprBlock = 23
	x, y := testData(90, 2, 3911)
	z, _ := testData(8, 2, 3912)
	k := sgprKernel()
	noise := 0.15
	grad := make([]float64, k.NumHyper()+1)
	got, err := FITCLogMarginal(k, x, z, y, noise, grad)
	if err != nil {
		t.Fatal(err)
	}
	if want := denseFITC(k, x, z, y, noise); math.Abs(got-want) > 1e-8*(1+math.Abs(want)) {
		t.Fatalf("FITC %.12g, dense %.12g", got, want)
	}
	noiseGradCheck(t, "FITC", k, noise, grad, func(kk kernels.Kernel, v float64) float64 { return denseFITC(kk, x, z, y, v) })
	x2, y2 := testData(40, 2, 3913)
	full, err := FITCLogMarginal(k, x2, x2, y2, noise, nil)
	if err != nil {
		t.Fatal(err)
	}
	if exact := denseLogMarginal(k, x2, y2, noise); math.Abs(full-exact) > 1e-5*(1+math.Abs(exact)) {
		t.Errorf("with z = x FITC is %.10g, the exact log marginal %.10g", full, exact)
	}
}

// TestFITCPredict checks the streamed predictive against eq. 20 formed
// densely: mean K_*z Σ K_zn Λ⁻¹y, variance k_** − Q_** + K_*z Σ K_z*,
// Σ = (K_zz + K_zn Λ⁻¹ K_nz)⁻¹.
func TestFITCPredict(t *testing.T) {
	defer func(b int) { sgprBlock = b }(sgprBlock)
	sgprBlock = 13
	x, y := testData(50, 2, 3914)
	z, _ := testData(7, 2, 3915)
	xs, _ := testData(20, 2, 3916)
	k := sgprKernel()
	noise := 0.12
	mean, fvar, err := FITCPredict(k, x, z, y, noise, xs)
	if err != nil {
		t.Fatal(err)
	}
	n := len(y)
	kzz, _ := kernels.Gram(k, z)
	kzn, _ := kernels.Cross(k, z, x)
	kzs, _ := kernels.Cross(k, z, xs)
	var kzzi mat.Dense
	if err := kzzi.Inverse(kzz); err != nil {
		t.Fatal(err)
	}
	lam := make([]float64, n)
	scaled := mat.NewDense(7, n, nil)
	for i := range n {
		xi := x.RawRowView(i)
		lam[i] = k.Eval(xi, xi) - mat.Inner(kzn.ColView(i), &kzzi, kzn.ColView(i)) + noise
		for c := range 7 {
			scaled.Set(c, i, kzn.At(c, i)/lam[i])
		}
	}
	var s, si mat.Dense
	s.Mul(scaled, kzn.T())
	s.Add(&s, kzz)
	if err := si.Inverse(&s); err != nil {
		t.Fatal(err)
	}
	var u mat.VecDense
	u.MulVec(scaled, mat.NewVecDense(n, y))
	for j := range mean {
		ks := kzs.ColView(j)
		var sk mat.VecDense
		sk.MulVec(&si, ks)
		wantMean := mat.Dot(&sk, &u)
		xj := xs.RawRowView(j)
		wantVar := k.Eval(xj, xj) - mat.Inner(ks, &kzzi, ks) + mat.Dot(ks, &sk)
		if math.Abs(mean[j]-wantMean) > 1e-7*(1+math.Abs(wantMean)) || math.Abs(fvar[j]-wantVar) > 1e-7 {
			t.Fatalf("point %d: mean %.10g var %.10g, dense %.10g %.10g", j, mean[j], fvar[j], wantMean, wantVar)
		}
	}
}
