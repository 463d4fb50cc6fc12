package gp

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// svgpBenchLatent is the generating process's latent function of the
// scaling benchmark: three of the ten inputs matter.
func svgpBenchLatent(x []float64) float64 {
	return 2*math.Sin(2*x[0]) + 1.5*x[1] - x[2]*x[2] + 1
}

// svgpBenchData draws n rows x ~ N(0, I₁₀) and labels y ∈ {−1, 1} with
// P(y = 1 | x) = σ(f(x)), f = svgpBenchLatent, from stream index idx.
func svgpBenchData(n int, seed uint64, idx int) (*mat.Dense, []float64) {
	r := rng.New(seed, testStream.Index(idx))
	x := mat.NewDense(n, 10, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = r.NormFloat64()
		}
		y[i] = -1
		if r.Float64() < 1/(1+math.Exp(-svgpBenchLatent(row))) {
			y[i] = 1
		}
	}
	return x, y
}

// BenchmarkSVGPLogistic is the scaling benchmark of issue 39 item 3:
// logistic classification of n generated points in D = 10
// (svgpBenchData), n from KML_SVGP_N (comma-separated, default 10000),
// m from KML_SVGP_M (default 256) greedy inducing points chosen on the
// first 10⁴ rows at the starting kernel (ARD rbf, lengthscales 1, scale
// 1), batch 1024, KML_SVGP_STEPS steps (default 2000) of natural
// gradient (γ = 0.1) and Adam (lr 0.01). It reports the wall time of the
// fit (selection, steps and the final full-data ELBO), the held-out
// accuracy on 10⁵ fresh points beside the Bayes classifier's sign(f(x))
// on the same points, and the Go heap's size. Run with -benchtime=1x, one
// process per n under /usr/bin/time for the peak memory and the processor
// time, which on a crowded machine says more than the wall time:
//
//	KML_SVGP_N=100000 /usr/bin/time -v go test ./runtime/gp -run '^$' \
//	    -bench SVGPLogistic -benchtime 1x
func BenchmarkSVGPLogistic(b *testing.B) {
	sizes := []int{10000}
	if s := os.Getenv("KML_SVGP_N"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				b.Fatal(err)
			}
			sizes = append(sizes, n)
		}
	}
	m := envInt(b, "KML_SVGP_M", 256)
	steps := envInt(b, "KML_SVGP_STEPS", 2000)
	xt, yt := svgpBenchData(100000, 2, 61)
	bayes := 0
	for i := range yt {
		if (svgpBenchLatent(xt.RawRowView(i)) > 0) == (yt[i] > 0) {
			bayes++
		}
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for range b.N {
				x, y := svgpBenchData(n, 1, 60)
				runtime.GC()
				start := time.Now()
				ell := make([]float64, 10)
				for i := range ell {
					ell[i] = 1
				}
				rbf, _ := kernels.NewRBF(ell)
				k, _ := kernels.NewScaled(1, rbf)
				sel := min(n, 10000)
				z, err := GreedyVariance(k, x.Slice(0, sel, 0, 10).(*mat.Dense), m, 0)
				if err != nil {
					b.Fatal(err)
				}
				s, _ := NewSVGP(k, Lik{Kind: Logit}, z)
				res, err := s.Fit(context.Background(), x, y, SVGPSettings{Batch: 1024, Steps: steps, Gamma: 0.1, LR: 0.01, Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				el := time.Since(start)
				mean, _, err := s.Predict(xt)
				if err != nil {
					b.Fatal(err)
				}
				ok := 0
				for i := range yt {
					if (mean[i] > 0) == (yt[i] > 0) {
						ok++
					}
				}
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				acc := 100 * float64(ok) / float64(len(yt))
				bay := 100 * float64(bayes) / float64(len(yt))
				b.ReportMetric(el.Seconds(), "fit-s")
				b.ReportMetric(acc, "acc%")
				b.ReportMetric(bay, "bayes%")
				b.Logf("n = %d, m = %d, batch 1024, %d steps (%.2f epochs): fit %.1f s, ELBO %.1f, held-out accuracy %.2f%% (Bayes %.2f%%), heap sys %.0f MB; kernel %s",
					n, m, steps, res.Epochs, el.Seconds(), res.ELBO, acc, bay, float64(ms.HeapSys)/1e6, s.K)
			}
		})
	}
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		b.Fatal(err)
	}
	return v
}
