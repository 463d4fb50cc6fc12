package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// testStream is the random stream of this package's tests.
const testStream rng.Stream = 0x67707473 // "gpts"

// testKernel is 1.7·rbf-ARD + 0.3·linear(0.5) + 0.2·white: every kind of
// hyperparameter a GP model uses (amplitudes, ARD lengthscales, an offset).
func testKernel(t testing.TB, d int) kernels.Kernel {
	ell := make([]float64, d)
	for i := range ell {
		ell[i] = 0.7 + 0.3*float64(i)
	}
	rbf, err := kernels.NewRBF(ell)
	if err != nil {
		t.Fatal(err)
	}
	lin, _ := kernels.NewLinear(0.5)
	a, _ := kernels.NewScaled(1.7, rbf)
	b, _ := kernels.NewScaled(0.3, lin)
	c, _ := kernels.NewScaled(0.2, kernels.White{})
	ab, _ := kernels.NewSum(a, b)
	k, err := kernels.NewSum(ab, c)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func testData(n, d int, seed uint64) (*mat.Dense, []float64) {
	r := rng.New(seed, testStream)
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, r.NormFloat64())
		}
		y[i] = math.Sin(2*x.At(i, 0)) + 0.3*r.NormFloat64()
	}
	return x, y
}

// denseLogMarginal is log N(y | 0, K + σ²I) by an LU inverse and
// determinant of the matrix built entry by entry.
func denseLogMarginal(k kernels.Kernel, x *mat.Dense, y []float64, noise float64) float64 {
	n, _ := x.Dims()
	c := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := k.Eval(x.RawRowView(i), x.RawRowView(j))
			if i == j {
				v += noise
			}
			c.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		panic(err)
	}
	yv := mat.NewVecDense(n, y)
	quad := mat.Inner(yv, &inv, yv)
	logdet, sign := mat.LogDet(c)
	if sign <= 0 {
		panic("not positive definite")
	}
	return -0.5*quad - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
}

func TestLogMarginalMatchesDense(t *testing.T) {
	x, y := testData(25, 3, 1)
	k := testKernel(t, 3)
	got, err := LogMarginal(k, x, y, 0.09, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := denseLogMarginal(k, x, y, 0.09)
	if math.Abs(got-want) > 1e-9*math.Abs(want) {
		t.Fatalf("log marginal %.12g, dense %.12g", got, want)
	}
}

// TestLogMarginalGradient compares every hyperparameter's derivative and
// the noise's with central differences of the dense computation.
func TestLogMarginalGradient(t *testing.T) {
	x, y := testData(20, 3, 2)
	k := testKernel(t, 3)
	noise := 0.09
	nh := k.NumHyper()
	grad := make([]float64, nh+1)
	if _, err := LogMarginal(k, x, y, noise, grad); err != nil {
		t.Fatal(err)
	}
	h0 := k.Hyper(nil)
	names := append(k.HyperNames(), "noise")
	for i := 0; i <= nh; i++ {
		f := func(delta float64) float64 {
			if i == nh {
				return denseLogMarginal(k, x, y, noise+delta)
			}
			h := append([]float64(nil), h0...)
			h[i] += delta
			kk, err := k.WithHyper(h)
			if err != nil {
				t.Fatal(err)
			}
			return denseLogMarginal(kk, x, y, noise)
		}
		const eps = 1e-5
		fd := (f(eps) - f(-eps)) / (2 * eps)
		if math.Abs(fd-grad[i]) > 1e-5*(1+math.Abs(fd)) {
			t.Errorf("∂/∂%s = %.9g, finite difference %.9g", names[i], grad[i], fd)
		}
	}
}

func TestLogMarginalNotPositiveDefinite(t *testing.T) {
	x, y := testData(10, 2, 3)
	// A negative amplitude makes K negative definite; no jitter helps.
	rbf, _ := kernels.NewRBF([]float64{1})
	k := &kernels.Scaled{C: -1, K: rbf}
	if _, err := LogMarginal(k, x, y, 0.01, nil); err != ErrNotPD {
		t.Fatalf("err = %v, want ErrNotPD", err)
	}
}
