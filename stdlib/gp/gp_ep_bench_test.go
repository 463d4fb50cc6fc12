package gp_test

import (
	"bytes"
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// classifyData is examples/gp_classify.kml's training split through the
// interpreter (classifySrc): the 207 × 64 inputs and the labels as ±1.
func classifyData(b *testing.B) (*mat.Dense, []float64) {
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{"../../examples/data"}, BaseDir: "../../examples/data"})
	if _, err := in.Eval("setup.kml", classifySrc); err != nil {
		b.Fatal(err)
	}
	xv, err := in.Eval("x.kml", "X")
	if err != nil {
		b.Fatal(err)
	}
	cv, err := in.Eval("c.kml", "c")
	if err != nil {
		b.Fatal(err)
	}
	x := mat.DenseCopyOf(xv.(*eval.Mat).M)
	c := cv.(*eval.Vec).Data
	y := make([]float64, len(c))
	for i, v := range c {
		y[i] = 2*v - 1
	}
	return x, y
}

// BenchmarkGPClassifyEval times one evaluation of the approximate log
// marginal likelihood with its gradient (what one L-BFGS step of ML-II
// asks for) on examples/gp_classify.kml's data (n = 207, D = 64), by
// Laplace's approximation and by EP, each from a cold start, at two
// points: (ℓ, a) = (2.5, 20) and Laplace's ML-II optimum (5.86, 1105).
// cpu-s/op is the process's CPU time (user + system, all threads) per
// evaluation, the figure to quote on a loaded machine.
func BenchmarkGPClassifyEval(b *testing.B) {
	x, y := classifyData(b)
	l := rgp.Lik{Kind: rgp.Logit}
	for _, at := range []struct{ ell, a float64 }{{2.5, 20}, {5.86, 1105}} {
		rbf, _ := kernels.NewRBF([]float64{at.ell})
		k, _ := kernels.NewScaled(at.a, rbf)
		for _, ap := range []struct {
			name string
			inf  rgp.Inference
		}{{"laplace", rgp.LaplaceApprox{}}, {"ep", rgp.EP{}}} {
			b.Run(fmt.Sprintf("%s/ell=%g,a=%g", ap.name, at.ell, at.a), func(b *testing.B) {
				grad := make([]float64, k.NumHyper())
				var lml float64
				c0 := cpuTime()
				for b.Loop() {
					v, err := rgp.NonGaussian(rgp.Settings{Kind: rgp.MLM, Approx: ap.inf}, k, x, y, l, grad)
					if err != nil {
						b.Fatal(err)
					}
					lml = v
				}
				b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(lml, "lml")
			})
		}
	}
}
