package causal

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// On an AR(2) series (x_t = 1 + 0.6x_{t−1} − 0.3x_{t−2} + e_t) and white
// noise, AIC picks an order of at least 2 (AIC may overshoot; here 4) and
// 0, the coefficients are near the truth (further lags near 0) and the
// residuals are the innovations.
func TestPrewhitenAR2(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0x7072))
	n := 3000
	x := mat.NewDense(n, 2, nil)
	e := make([]float64, n)
	for i := 0; i < n; i++ {
		e[i] = r.NormFloat64()
		v := 1 + e[i]
		if i >= 2 {
			v += 0.6*x.At(i-1, 0) - 0.3*x.At(i-2, 0)
		}
		x.Set(i, 0, v)
		x.Set(i, 1, r.NormFloat64())
	}
	w, err := Prewhiten(x, -1, 6)
	if err != nil {
		t.Fatal(err)
	}
	if w.Orders[0] < 2 || w.Orders[1] != 0 {
		t.Errorf("orders %v, want [≥2 0]", w.Orders)
	}
	for k, want := range []float64{1, 0.6, -0.3, 0, 0, 0, 0}[:w.Orders[0]+1] {
		if math.Abs(w.Coef[0][k]-want) > 0.1 {
			t.Errorf("coefficient %d: %g, want %g", k, w.Coef[0][k], want)
		}
	}
	if rows, _ := w.Resid.Dims(); rows != n-6 {
		t.Errorf("%d rows, want %d", rows, n-6)
	}
	if c := stat.Correlation(mat.Col(nil, 0, w.Resid), e[6:], nil); c < 0.99 {
		t.Errorf("residuals vs innovations: correlation %g", c)
	}
	f, err := Prewhiten(x, 1, 0)
	if err != nil || f.Orders[0] != 1 || f.MaxOrder != 1 {
		t.Errorf("a fixed order 1: %v %v", f.Orders, err)
	}
	if _, err := Prewhiten(mat.NewDense(5, 1, nil), 3, 0); err == nil {
		t.Error("5 rows for order 3: want an error")
	}
}
