package kst

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// The density does not depend on the order of the training rows, and with
// a shift-invariant kernel it moves with the data: shifting the data and
// the points by the same vector leaves log q unchanged.
func TestInvariances(t *testing.T) {
	r := testStream(10, t.Name())
	n, d := 40, 3
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	q := mat.NewDense(15, d, nil)
	for i := range q.RawMatrix().Data {
		q.RawMatrix().Data[i] = 2 * r.NormFloat64()
	}
	rbf, _ := kernels.NewRBF([]float64{0.9, 1.4, 0.6})
	poly, _ := kernels.NewPoly(3, 1)
	h := Hyper{Sigma0: 0.4, Alpha: 2, Beta: 0.05}
	for _, k := range []kernels.Kernel{rbf, poly} {
		m, _ := Fit(k, x, h)
		base := logpdf(t, m, q)
		perm := r.Perm(n)
		xp := mat.NewDense(n, d, nil)
		for i, p := range perm {
			xp.SetRow(i, x.RawRowView(p))
		}
		mp, _ := Fit(k, xp, h)
		for i, v := range logpdf(t, mp, q) {
			if !relClose(v, base[i], 1e-10) {
				t.Errorf("%s: permuted rows change log q at point %d: %v, %v", k, i, v, base[i])
			}
		}
	}
	shift := []float64{3, -7, 0.5}
	move := func(a *mat.Dense) *mat.Dense {
		rows, _ := a.Dims()
		out := mat.DenseCopyOf(a)
		for i := 0; i < rows; i++ {
			for j := range shift {
				out.Set(i, j, out.At(i, j)+shift[j])
			}
		}
		return out
	}
	m, _ := Fit(rbf, x, h)
	ms, _ := Fit(rbf, move(x), h)
	base := logpdf(t, m, q)
	for i, v := range logpdf(t, ms, move(q)) {
		if !relClose(v, base[i], 1e-9) {
			t.Errorf("shifted data and points change log q at point %d: %v, %v", i, v, base[i])
		}
	}
}
