package gp

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/kernels"
)

// BenchmarkSGPRFit is the scaling table of issue 39 item 2: ML-II of
// Titsias' bound (SGPRLogMarginal) on the first n rows of testData(10⁵,
// D = 8) (y = sin(2x₁) + N(0, 0.3²)), n from KML_SGPR_N (comma-separated,
// default 10000), with m from KML_SGPR_M (default 512) inducing points
// chosen once by GreedyVariance on the first min(n, 10⁴) rows at the
// starting kernel (scaled ARD rbf, lengthscales 3, scale 1, σ² = 0.25),
// then L-BFGS (gonum) on the logs of the 8 lengthscales, the scale and σ²
// until the gradient's largest component is below 10⁻³·n or 300
// evaluations. It reports cpu-s/op (the process's user + system CPU
// seconds per fit: on a crowded machine the wall time says little),
// the greedy selection's CPU seconds, the evaluations of the bound with
// its gradient, CPU seconds per evaluation (the selection left out), and
// the bound per point at the optimum. One process per n
// under /usr/bin/time -v gives the peak memory:
//
//	KML_SGPR_N=100000 /usr/bin/time -v go test ./runtime/gp -run '^$' \
//	    -bench SGPRFit -benchtime 1x
func BenchmarkSGPRFit(b *testing.B) {
	sizes := []int{10000}
	if s := os.Getenv("KML_SGPR_N"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || n > 100000 {
				b.Fatalf("KML_SGPR_N: %q is not a size from 1 to 100000", f)
			}
			sizes = append(sizes, n)
		}
	}
	m := envInt(b, "KML_SGPR_M", 512)
	const d = 8
	xa, ya := testData(100000, d, 12)
	for _, n := range sizes {
		x := xa.Slice(0, n, 0, d).(*mat.Dense)
		y := ya[:n]
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var evals int
			var best, greedy float64
			before := cputime.Used().Seconds()
			for range b.N {
				ell := make([]float64, d)
				for i := range ell {
					ell[i] = 3
				}
				rbf, _ := kernels.NewRBF(ell)
				k0, _ := kernels.NewScaled(1, rbf)
				g0 := cputime.Used().Seconds()
				z, err := GreedyVariance(k0, mat.DenseCopyOf(x.Slice(0, min(n, 10000), 0, d)), m, 0)
				if err != nil {
					b.Fatal(err)
				}
				greedy = cputime.Used().Seconds() - g0
				p := k0.NumHyper() + 1 // scale, 8 lengthscales, σ²
				grad := make([]float64, p)
				evals = 0
				at := func(th []float64) (kernels.Kernel, float64) {
					h := make([]float64, p-1)
					for i := range h {
						h[i] = math.Exp(th[i])
					}
					k, err := k0.WithHyper(h)
					if err != nil {
						return nil, 0
					}
					return k, math.Exp(th[p-1])
				}
				var last []float64
				lastV := 0.0
				eval := func(th []float64) float64 {
					if last != nil && floatsEqual(last, th) {
						return lastV
					}
					evals++
					k, noise := at(th)
					if k == nil {
						return math.Inf(1)
					}
					v, err := SGPRLogMarginal(k, x, z, y, noise, grad)
					if err != nil {
						return math.Inf(1)
					}
					last, lastV = append(last[:0], th...), -v
					for i := range grad {
						grad[i] *= -math.Exp(th[i]) // d/dlog h = h·d/dh
					}
					return -v
				}
				prob := optimize.Problem{
					Func: eval,
					Grad: func(g, th []float64) {
						eval(th)
						copy(g, grad)
					},
				}
				start := make([]float64, p)
				start[0] = 0
				for i := 1; i <= d; i++ {
					start[i] = math.Log(3)
				}
				start[p-1] = math.Log(0.25)
				settings := &optimize.Settings{GradientThreshold: 1e-3 * float64(n), FuncEvaluations: 300}
				res, err := optimize.Minimize(prob, start, settings, &optimize.LBFGS{})
				if err != nil && res == nil {
					b.Fatal(err)
				}
				best = -res.F / float64(n)
			}
			cpu := (cputime.Used().Seconds() - before) / float64(b.N)
			b.ReportMetric(cpu, "cpu-s/op")
			b.ReportMetric(float64(evals), "evals")
			b.ReportMetric(greedy, "greedy-cpu-s")
			b.ReportMetric((cpu-greedy)/float64(evals), "cpu-s/eval")
			b.ReportMetric(best, "bound/n")
		})
	}
}

func floatsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
