package kbrstudy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kbr"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Method codes of kbr_abc.csv.
const (
	abcKBR = 1 // KBR, median bandwidths, incomplete Cholesky of rank ≤ 200
	abcCME = 2 // the conditional mean embedding, same sample and kernels
	abcABC = 3 // rejection ABC, 100 accepted per observation
	// abcFloor is tr(Σ_post)/100, the Monte Carlo error of the mean of 100
	// exact posterior draws: rejection ABC's error at τ → 0.
	abcFloor = 4
)

// meansOf returns the weighted means Σ_i w_ik X_i / Σ_i w_ik, one row per
// column of w (unnormalised where the weights cannot be normalised).
func meansOf(x, w *mat.Dense) *mat.Dense {
	_, m := w.Dims()
	_, d := x.Dims()
	out := mat.NewDense(m, d, nil)
	for k := 0; k < m; k++ {
		col := mat.Col(nil, k, w)
		mean, err := kbr.Mean(x, col, true)
		if err != nil {
			mean, _ = kbr.Mean(x, col, false)
		}
		out.SetRow(k, mean)
	}
	return out
}

// TestStudyABC is §5.2: the same Gaussian model as §5.1 (a new A each
// run), 10 observations per run drawn from their marginal under the
// prior, 10 runs per dimension. The likelihood-free methods see the model
// only through its simulator y | x ~ N(1 + Bx, S) and the prior sampler.
// KBR and CME simulate n pairs (x from the prior) and condition on all 10
// observations; their time includes the simulation. Rejection ABC accepts
// 100 parameters per observation within a tolerance τ = c·q, where q is
// the median distance between the observations and 2000 pilot
// simulations, for c = 1, 1/2, 1/4, 1/8, 1/16, with at most 200,000
// simulations (an observation with no acceptance leaves the setting's
// error missing, and the smaller tolerances of that run are not tried). It writes examples/data/kbr_abc.csv.
func TestStudyABC(t *testing.T) {
	if os.Getenv("KML_KBR_STUDY") == "" {
		t.Skip("set KML_KBR_STUDY=1 to run the KBR/ABC study")
	}
	dims := []int{2, 4, 8, 16, 32, 64}
	ns := []int{200, 400, 800, 1600, 3200}
	scales := []float64{1, 0.5, 0.25, 0.125, 0.0625}
	const runs, points = 10, 10
	out, err := os.Create("../../examples/data/kbr_abc.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	fmt.Fprintln(out, "d,run,method,setting,seconds,simulations,mse")
	row := func(d, run, method int, setting, sec float64, sims int, mse float64) {
		fmt.Fprintf(out, "%d,%d,%d,%.6g,%.6g,%d,%.8g\n", d, run, method, setting, sec, sims, mse)
	}
	for _, d := range dims {
		for run := 1; run <= runs; run++ {
			r := rand.New(rand.NewPCG(uint64(100*d+run), 0x353232)) // "522": §5.2
			g := newGaussModel(r, d)
			ys := g.observations(r, points)
			want := g.posteriorMean(ys)
			row(d, run, abcFloor, 0, 0, 0, g.posteriorTrace()/100)
			for _, n := range ns {
				t0 := time.Now()
				x := g.priorSample(r, n)
				y := g.simulate(r, x)
				simTime := time.Since(t0)
				t1 := time.Now()
				sx, err := kernels.MedianHeuristic(x, 1)
				if err != nil {
					t.Fatal(err)
				}
				sy, err := kernels.MedianHeuristic(y, 1)
				if err != nil {
					t.Fatal(err)
				}
				kx, _ := kernels.NewRBF([]float64{sx})
				ky, _ := kernels.NewRBF([]float64{sy})
				s := settingsFor(n)
				s.Rank = 200
				p, err := kbr.New(x, y, kx, ky, kbr.Prior{U: x}, s)
				if err != nil {
					t.Fatal(err)
				}
				w, err := p.Condition(ys)
				if err != nil {
					t.Fatal(err)
				}
				e := sqError(meansOf(x, w), want)
				row(d, run, abcKBR, float64(n), (simTime + time.Since(t1)).Seconds(), n, e)
				t2 := time.Now()
				c, err := kbr.NewCME(x, y, ky, s)
				if err != nil {
					t.Fatal(err)
				}
				wc, err := c.Condition(ys)
				if err != nil {
					t.Fatal(err)
				}
				ec := sqError(meansOf(x, wc), want)
				row(d, run, abcCME, float64(n), (simTime + time.Since(t2)).Seconds(), n, ec)
				t.Logf("d %d run %d n %d: KBR %.3g, CME %.3g", d, run, n, e, ec)
			}
			// The tolerance scale: distances from the observations to pilot simulations.
			pilot := g.simulate(r, g.priorSample(r, 2000))
			dist := sqDist(ys, pilot)
			raw := dist.RawMatrix().Data
			all := make([]float64, len(raw))
			for i, v := range raw {
				all[i] = math.Sqrt(v)
			}
			sort.Float64s(all)
			q := all[len(all)/2]
			draw := func(k int) (*mat.Dense, error) { return g.priorSample(r, k), nil }
			sim := func(th *mat.Dense) (*mat.Dense, error) { return g.simulate(r, th), nil }
			failed := false
			for _, c := range scales {
				t0 := time.Now()
				if failed {
					row(d, run, abcABC, c, 0, 0, math.NaN())
					continue
				}
				res, err := kbr.Rejection(draw, sim, ys, kbr.ABCSettings{Tol: c * q, Accept: 100, MaxSims: 200000, Batch: 2000})
				sec := time.Since(t0).Seconds()
				if err != nil {
					failed = true
					row(d, run, abcABC, c, sec, 200000, math.NaN())
					t.Logf("d %d run %d ABC τ = %.2f q: %v", d, run, c, err)
					continue
				}
				est := mat.NewDense(points, d, nil)
				for k, a := range res.Accepted {
					ak, _ := a.Dims()
					for j := 0; j < d; j++ {
						est.Set(k, j, mat.Sum(a.ColView(j))/float64(ak))
					}
				}
				e := sqError(est, want)
				row(d, run, abcABC, c, sec, res.Simulations, e)
				t.Logf("d %d run %d ABC τ = %.2f q (%.3g): %.3g in %d simulations, %.2fs", d, run, c, c*q, e, res.Simulations, sec)
			}
		}
	}
}
