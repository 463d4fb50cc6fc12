package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// denseLogMarginalNoise is log N(y | 0, K + diag(noise)) by an LU inverse
// and determinant of the matrix built entry by entry.
func denseLogMarginalNoise(k kernels.Kernel, x *mat.Dense, y, noise []float64) float64 {
	n, _ := x.Dims()
	c := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := k.Eval(x.RawRowView(i), x.RawRowView(j))
			if i == j {
				v += noise[i]
			}
			c.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		panic(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(c)
	return -0.5*mat.Inner(yv, &inv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
}

// TestLogMarginalNoise checks the log marginal likelihood with one known
// noise variance per observation against the dense computation, on the
// structured (scaled rbf) and the generic (rbf × linear) paths, and its
// gradient in the hyperparameters and in every σᵢ² against central
// differences of the dense value.
func TestLogMarginalNoise(t *testing.T) {
	x, y := testData(25, 2, 3901)
	noise := make([]float64, 25)
	for i := range noise {
		noise[i] = 0.02 + 0.3*float64(i%5)/5
	}
	rbf, _ := kernels.NewRBF([]float64{0.9, 1.4})
	lin, _ := kernels.NewLinear(0.5)
	scaled, _ := kernels.NewScaled(1.3, rbf)
	prod, _ := kernels.NewProduct(scaled, lin)
	for _, k := range []kernels.Kernel{scaled, prod} {
		nh := k.NumHyper()
		grad := make([]float64, nh+len(noise))
		got, err := LogMarginalNoise(k, x, y, noise, grad)
		if err != nil {
			t.Fatal(err)
		}
		if want := denseLogMarginalNoise(k, x, y, noise); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Fatalf("%s: log marginal %.12g, dense %.12g", k, got, want)
		}
		h0 := k.Hyper(nil)
		const eps = 1e-6
		for i := range grad {
			f := func(delta float64) float64 {
				if i >= nh {
					nz := append([]float64(nil), noise...)
					nz[i-nh] += delta
					return denseLogMarginalNoise(k, x, y, nz)
				}
				h := append([]float64(nil), h0...)
				h[i] += delta
				kk, _ := k.WithHyper(h)
				return denseLogMarginalNoise(kk, x, y, noise)
			}
			fd := (f(eps) - f(-eps)) / (2 * eps)
			if math.Abs(fd-grad[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%s: derivative %d = %.10g, finite difference %.10g", k, i, grad[i], fd)
			}
		}
	}
	if _, err := LogMarginalNoise(scaled, x, y, noise[:3], nil); err == nil {
		t.Error("3 noise variances for 25 observations accepted")
	}
}
