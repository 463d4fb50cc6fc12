package kst

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LogNormaliser1D returns log ∫_lo^hi q(x) dx for a one-dimensional
// density, by the trapezoid rule on n equally spaced points (n ≥ 3),
// summed in log space so that no value overflows. Shift-invariant kernels
// give a density that tends to a constant far from the data, so only a
// bounded window has a finite normaliser.
func LogNormaliser1D(d Density, lo, hi float64, n int) (float64, error) {
	if d.Dim() != 1 {
		return 0, fmt.Errorf("normalising by quadrature needs a one-dimensional density, this one has %d dimensions", d.Dim())
	}
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, fmt.Errorf("the window must be finite with lo < hi, got [%v, %v]", lo, hi)
	}
	if n < 3 {
		n = 3
	}
	x := mat.NewDense(n, 1, nil)
	h := (hi - lo) / float64(n-1)
	for i := 0; i < n; i++ {
		x.Set(i, 0, lo+h*float64(i))
	}
	lp := make([]float64, n)
	if err := d.LogPDF(lp, x); err != nil {
		return 0, err
	}
	top := math.Inf(-1)
	for _, v := range lp {
		top = max(top, v)
	}
	if math.IsInf(top, -1) {
		return top, nil
	}
	s := 0.0
	for i, v := range lp {
		w := 1.0
		if i == 0 || i == n-1 {
			w = 0.5
		}
		s += w * math.Exp(v-top)
	}
	return top + math.Log(s*h), nil
}
