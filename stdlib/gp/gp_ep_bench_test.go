package gp_test

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/lang/eval"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/inference"
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
				c0 := cputime.Used()
				for b.Loop() {
					v, err := rgp.NonGaussian(rgp.Settings{Kind: rgp.MLM, Approx: ap.inf}, k, x, y, l, grad)
					if err != nil {
						b.Fatal(err)
					}
					lml = v
				}
				b.ReportMetric((cputime.Used()-c0).Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(lml, "lml")
			})
		}
	}
}

// BenchmarkGPClassifyFit times ML-II by L-BFGS over (log ℓ, log a) on
// examples/gp_classify.kml's data (n = 207, D = 64), from ℓ = a = e (the
// priors' medians), with the optimiser settings of optimize(): EP from a
// cold start at every evaluation, EP with GPML's warm start (EPWarm) and
// Laplace's approximation. It reports the evaluations, the CPU seconds of
// the fit and per evaluation, the inner iterations per evaluation (EP's
// sweeps, Newton steps) and the log evidence reached.
func BenchmarkGPClassifyFit(b *testing.B) {
	x, y := classifyData(b)
	l := rgp.Lik{Kind: rgp.Logit}
	for _, ap := range []struct {
		name string
		inf  func() rgp.Inference
	}{
		{"ep-cold", func() rgp.Inference { return rgp.EP{} }},
		{"ep-warm", func() rgp.Inference { return &rgp.EPWarm{} }},
		{"laplace", func() rgp.Inference { return rgp.LaplaceApprox{} }},
		{"laplace-warm", func() rgp.Inference { return &rgp.LaplaceWarm{} }},
	} {
		b.Run(ap.name, func(b *testing.B) {
			var lml, evals, iters, inner float64
			c0 := cputime.Used()
			for b.Loop() {
				c := &counted{inf: ap.inf()}
				res, n, err := classifyFit(x, y, l, c)
				if err != nil {
					b.Fatal(err)
				}
				lml, evals, iters, inner = -res.F, float64(n), float64(res.MajorIterations), float64(c.iters)
			}
			cpu := (cputime.Used() - c0).Seconds() / float64(b.N)
			b.ReportMetric(cpu, "cpu-s/op")
			b.ReportMetric(cpu/evals, "cpu-s/eval")
			b.ReportMetric(evals, "evals")
			b.ReportMetric(iters, "iters")
			b.ReportMetric(inner/evals, "inner/eval")
			b.ReportMetric(lml, "lml")
		})
	}
}

// counted is an Inference that adds up its fits' inner iterations (EP's
// sweeps, Laplace's Newton steps).
type counted struct {
	inf   rgp.Inference
	iters int
}

func (c *counted) Fit(K *mat.SymDense, y []float64, l rgp.Lik, needs rgp.Needs) (*rgp.Posterior, error) {
	p, err := c.inf.Fit(K, y, l, needs)
	if err == nil {
		c.iters += p.Iterations
	}
	return p, err
}

// classifyFit is one ML-II fit of BenchmarkGPClassifyFit by inf.
func classifyFit(x *mat.Dense, y []float64, l rgp.Lik, inf rgp.Inference) (*optimize.Result, int, error) {
	evals := 0
	var cacheX, cacheG []float64
	var cacheF float64
	var lastErr error
	eval := func(th []float64) float64 {
		if cacheX != nil && slices.Equal(cacheX, th) {
			return cacheF
		}
		evals++
		ell, a := math.Exp(th[0]), math.Exp(th[1])
		rbf, _ := kernels.NewRBF([]float64{ell})
		k, _ := kernels.NewScaled(a, rbf)
		g := make([]float64, 2)
		v, err := rgp.NonGaussian(rgp.Settings{Kind: rgp.MLM, Approx: inf}, k, x, y, l, g)
		if err != nil {
			lastErr = err
			v, g[0], g[1] = math.Inf(-1), 0, 0
		}
		// Hyper(nil) is (a, ℓ): ∂/∂log a = a ∂/∂a, ∂/∂log ℓ = ℓ ∂/∂ℓ.
		cacheG = []float64{-g[1] * ell, -g[0] * a}
		cacheX, cacheF = append(cacheX[:0], th...), -v
		return cacheF
	}
	prob := optimize.Problem{Func: eval, Grad: func(g, th []float64) { eval(th); copy(g, cacheG) }}
	res, err := optimize.Minimize(prob, []float64{1, 1}, &optimize.Settings{
		GradientThreshold: 1e-6,
		MajorIterations:   1000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-12, Relative: 1e-12, Iterations: 50},
	}, &optimize.LBFGS{Linesearcher: &inference.LineSearch{Max: inference.DefaultLineSearchMax}})
	if res == nil {
		return nil, evals, fmt.Errorf("%v (%v)", err, lastErr)
	}
	return res, evals, nil
}
