package kst

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Classify renormalises the joint density over the one-hot codes: its
// probabilities match exp(log q) evaluated point by point.
func TestClassify(t *testing.T) {
	r := testStream(8, t.Name())
	// Two well separated classes in 2-D, with one-hot codes of 3 labels.
	n := 60
	x := mat.NewDense(n, 5, nil)
	for i := 0; i < n; i++ {
		c := i % 2
		x.Set(i, 0, float64(3*c)+0.5*r.NormFloat64())
		x.Set(i, 1, 0.5*r.NormFloat64())
		x.Set(i, 2+c, 1)
	}
	k, _ := kernels.NewRBF([]float64{1, 1, 1, 1, 1})
	m, err := Fit(k, x, Hyper{Sigma0: 0.3, Alpha: 1, Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := mat.NewDense(2, 2, []float64{0.1, 0, 2.9, 0.2})
	lab, probs, err := Classify(m, f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if lab[0] != 0 || lab[1] != 1 {
		t.Errorf("labels %v, want [0 1]", lab)
	}
	for i := 0; i < 2; i++ {
		var lp [3]float64
		s := 0.0
		for l := 0; l < 3; l++ {
			pt := mat.NewDense(1, 5, nil)
			pt.Set(0, 0, f.At(i, 0))
			pt.Set(0, 1, f.At(i, 1))
			pt.Set(0, 2+l, 1)
			lp[l] = logpdf(t, m, pt)[0]
			s += math.Exp(lp[l])
		}
		for l := 0; l < 3; l++ {
			if want := math.Exp(lp[l]) / s; !relClose(probs.At(i, l), want, 1e-12) {
				t.Errorf("row %d label %d: p = %v, want %v", i, l, probs.At(i, l), want)
			}
		}
	}
	if _, _, err := Classify(m, f, 4); err == nil {
		t.Error("wrong label count: no error")
	}
}

// LogNormaliser1D agrees with a closed form: the Parzen window of rbf(ℓ) on
// one point integrates to ℓ√(2π) over a wide window.
func TestLogNormaliser1D(t *testing.T) {
	k, _ := kernels.NewRBF([]float64{0.5})
	e, _ := NewKDE(k, mat.NewDense(1, 1, []float64{0.3}))
	got, err := LogNormaliser1D(e, -8, 8, 4001)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(0.5 * math.Sqrt(2*math.Pi)); math.Abs(got-want) > 1e-9 {
		t.Errorf("log Z = %.12g, want %.12g", got, want)
	}
}

// Tune finds the grid point a score prefers, first of equals.
func TestTune(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0, 1, 2})
	var calls int
	best, all, err := Tune(Grid{Ell: []float64{0.5, 1, 2}, Sigma0: []float64{0.1, 1}},
		func(ell float64) (kernels.Kernel, error) { return kernels.NewRBF([]float64{ell}) },
		func(k kernels.Kernel, h Hyper) (Density, error) { return Fit(k, x, h) },
		func(d Density) (float64, error) {
			calls++
			m := d.(*Model)
			return -math.Abs(m.Kernel().(*kernels.Stationary).Ell[0]-1) - math.Abs(m.Hyper().Sigma0-1), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 || len(all) != 6 {
		t.Errorf("%d scores, %d points; want 6", calls, len(all))
	}
	if best.Ell != 1 || best.Hyper.Sigma0 != 1 {
		t.Errorf("best %+v, want ell 1, sigma0 1", best)
	}
}
