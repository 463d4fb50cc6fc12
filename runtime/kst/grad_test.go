package kst

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// LogPDFGrad's value is LogPDF's and its gradient matches central
// differences of LogPDF: kst with shift-invariant kernels and with poly
// (whose Jacobian term is included), and the Parzen window with rbf (log
// space) and matern52 (direct sums).
func TestLogPDFGrad(t *testing.T) {
	r := testStream(9, t.Name())
	n, d := 25, 2
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	rbf, _ := kernels.NewRBF([]float64{0.7, 1.3})
	m52, _ := kernels.NewMatern(5, []float64{1})
	poly, _ := kernels.NewPoly(2, 1)
	var dens []GradDensity
	for _, k := range []kernels.Kernel{rbf, m52, poly} {
		for _, h := range hypers {
			m, err := Fit(k, x, h)
			if err != nil {
				t.Fatal(err)
			}
			dens = append(dens, m)
		}
	}
	scaled, _ := kernels.NewScaled(2.5, rbf)
	for _, k := range []kernels.Kernel{rbf, m52, scaled} {
		e, err := NewKDE(k, x)
		if err != nil {
			t.Fatal(err)
		}
		dens = append(dens, e)
	}
	for di, m := range dens {
		for trial := 0; trial < 5; trial++ {
			at := []float64{1.5 * r.NormFloat64(), 1.5 * r.NormFloat64()}
			grad := make([]float64, d)
			lp := m.LogPDFGrad(grad, at)
			if want := logpdf(t, m, mat.NewDense(1, d, at))[0]; !relClose(lp, want, 1e-10) {
				t.Errorf("density %d: LogPDFGrad value %v, LogPDF %v", di, lp, want)
			}
			for j := range at {
				step := 1e-5
				y := append([]float64(nil), at...)
				y[j] += step
				up := logpdf(t, m, mat.NewDense(1, d, y))[0]
				y[j] -= 2 * step
				dn := logpdf(t, m, mat.NewDense(1, d, y))[0]
				fd := (up - dn) / (2 * step)
				if math.Abs(grad[j]-fd) > 1e-5*max(1, math.Abs(fd)) {
					t.Errorf("density %d at %v: ∂/∂x%d = %.9g, finite differences %.9g", di, at, j+1, grad[j], fd)
				}
			}
		}
	}
}
