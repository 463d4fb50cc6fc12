package kst

import (
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// BenchmarkKSTLogpdf fits N = 2,000 points of D = 74 (64 pixels in [0, 1]
// and a one-hot label of 10, like the digits) and evaluates 10,000 new
// points. It reports the time per new point, the fit's time and, measured in
// the same run, one N×N Cholesky factorisation for scale.
//
//	go test -run '^$' -bench KSTLogpdf -benchtime 3x ./runtime/kst
func BenchmarkKSTLogpdf(b *testing.B) {
	const n, npix, nlab, nq = 2000, 64, 10, 10000
	r := testStream(7, "bench")
	gen := func(rows int) *mat.Dense {
		x := mat.NewDense(rows, npix+nlab, nil)
		for i := 0; i < rows; i++ {
			for j := 0; j < npix; j++ {
				x.Set(i, j, r.Float64())
			}
			x.Set(i, npix+r.IntN(nlab), 1)
		}
		return x
	}
	x, q := gen(n), gen(nq)
	ell := make([]float64, npix+nlab)
	for j := range ell {
		ell[j] = 3
		if j >= npix {
			ell[j] = 1
		}
	}
	k, _ := kernels.NewRBF(ell)
	h := Hyper{Sigma0: 1, Alpha: 1, Beta: 1}
	gram, _ := kernels.Gram(k, x)
	spd := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := gram.At(i, j)
			if i == j {
				v++
			}
			spd.SetSym(i, j, v)
		}
	}
	out := make([]float64, nq)
	var fit, chol, eval time.Duration
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		t0 := time.Now()
		m, err := Fit(k, x, h)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := m.LogPDF(out, q); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		var c mat.Cholesky
		if !c.Factorize(spd) {
			b.Fatal("not positive definite")
		}
		t3 := time.Now()
		fit += t1.Sub(t0)
		eval += t2.Sub(t1)
		chol += t3.Sub(t2)
	}
	nb := float64(b.N)
	b.ReportMetric(float64(fit.Milliseconds())/nb, "fit-ms")
	b.ReportMetric(float64(chol.Milliseconds())/nb, "cholesky-ms")
	b.ReportMetric(float64(eval.Microseconds())/nb/nq, "µs/point")
}
