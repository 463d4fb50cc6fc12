package gp

import (
	"encoding/csv"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/cputime"
	"github.com/kml-lang/kml/runtime/kernels"
)

// digits38 returns the first n images of 3s and 8s in
// examples/data/digits.csv (pixels / 16, D = 64) with labels ±1 (+1 for
// an 8): examples/gp_classify.kml's data at its size, n = 207 (the
// example draws its 207 by split(seed: 2); the cost is the same).
func digits38(tb testing.TB, n int) (*mat.Dense, []float64) {
	tb.Helper()
	f, err := os.Open("../../examples/data/digits.csv")
	if err != nil {
		tb.Skip(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	x := mat.NewDense(n, 64, nil)
	y := make([]float64, 0, n)
	for _, r := range recs[1:] {
		if len(y) == n {
			break
		}
		if r[64] != "3" && r[64] != "8" {
			continue
		}
		i := len(y)
		for j := 0; j < 64; j++ {
			v, err := strconv.ParseFloat(r[j], 64)
			if err != nil {
				tb.Fatal(err)
			}
			x.Set(i, j, v/16)
		}
		y = append(y, map[bool]float64{true: 1, false: -1}[r[64] == "8"])
	}
	if len(y) < n {
		tb.Fatalf("%d images of 3s and 8s, want %d", len(y), n)
	}
	return x, y
}

// BenchmarkLaplaceDigits times one evaluation of Laplace's log marginal
// likelihood with its gradient for examples/gp_classify.kml's model
// (a · rbf(ℓ), logistic likelihood) at n = 207, D = 64: at the ML-II
// start (a = ℓ = e) and near the optimum the example reaches (a = 1105,
// ℓ = 5.86, where the mode needs more Newton steps). It reports CPU
// seconds per evaluation (getrusage, all threads) beside the wall time.
func BenchmarkLaplaceDigits(b *testing.B) {
	x, y := digits38(b, 207)
	for _, c := range []struct {
		name   string
		a, ell float64
	}{{"start", 2.718281828, 2.718281828}, {"optimum", 1105, 5.858}} {
		b.Run(c.name, func(b *testing.B) {
			rbf, _ := kernels.NewRBF([]float64{c.ell})
			k, _ := kernels.NewScaled(c.a, rbf)
			s := Settings{Kind: MLM, Approx: LaplaceApprox{}}
			grad := make([]float64, k.NumHyper())
			b.ResetTimer()
			cpu0 := cputime.Used()
			for range b.N {
				if _, err := NonGaussian(s, k, x, y, Lik{Kind: Logit}, grad); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkContractDigits times the gradient contraction ½ Σᵢⱼ Wᵢⱼ ∂Kᵢⱼ/∂h
// alone for examples/gp_classify.kml's a·rbf(ℓ) at n = 207, D = 64:
// ContractSym's matrix form and Contract's call per pair, side by side,
// in CPU seconds per contraction; and the same with an ARD rbf (64
// lengthscales).
func BenchmarkContractDigits(b *testing.B) {
	x, _ := digits38(b, 207)
	ell := make([]float64, 64)
	for i := range ell {
		ell[i] = 5 + 0.05*float64(i)
	}
	rbf, _ := kernels.NewRBF([]float64{5.858})
	ard, _ := kernels.NewRBF(ell)
	w := mat.NewSymDense(207, nil)
	for i := range 207 {
		for j := i; j < 207; j++ {
			w.SetSym(i, j, math.Sin(float64(3*i+j)))
		}
	}
	iso, _ := kernels.NewScaled(1105, rbf)
	ardScaled, _ := kernels.NewScaled(1105, ard)
	for _, kc := range []struct {
		name string
		k    kernels.Kernel
	}{{"iso", iso}, {"ard", ardScaled}} {
		dst := make([]float64, kc.k.NumHyper())
		for _, c := range []struct {
			name string
			f    func([]float64, kernels.Kernel, *mat.Dense, *mat.SymDense)
		}{{"matrix", ContractSym}, {"pairs", Contract}} {
			b.Run(kc.name+"/"+c.name, func(b *testing.B) {
				cpu0 := cputime.Used()
				for range b.N {
					c.f(dst, kc.k, x, w)
				}
				b.ReportMetric((cputime.Used()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// BenchmarkEPLaplaceDigits times one EP evaluation of the log marginal
// likelihood with its gradient against one Laplace evaluation, alternated
// in one process (Laplace, then EP, every round), for
// examples/gp_classify.kml's data (n = 207, D = 64, logistic likelihood)
// under a·rbf(ℓ) with one lengthscale (the example's kernel) and with 64
// (ARD): at the ML-II start (a = ℓ = e) and at the example's Laplace
// optimum (a = 1105, ℓ = 5.86, where the labels' separability makes the
// cavities wide). It reports the medians of each evaluation's CPU
// milliseconds (getrusage, all threads) and of their per-round ratio
// ep/laplace, issue 39's aim being at most 3.
func BenchmarkEPLaplaceDigits(b *testing.B) {
	x, y := digits38(b, 207)
	for _, c := range []struct {
		name   string
		a, ell float64
	}{{"start", 2.718281828, 2.718281828}, {"optimum", 1105, 5.858}} {
		for _, ard := range []bool{false, true} {
			name := c.name + "/iso"
			ell := []float64{c.ell}
			if ard {
				name = c.name + "/ard"
				ell = make([]float64, 64)
				for i := range ell {
					ell[i] = c.ell
				}
			}
			b.Run(name, func(b *testing.B) {
				rbf, _ := kernels.NewRBF(ell)
				k, _ := kernels.NewScaled(c.a, rbf)
				lap := Settings{Kind: MLM, Approx: LaplaceApprox{}}
				ep := Settings{Kind: MLM, Approx: EP{}}
				grad := make([]float64, k.NumHyper())
				var tl, te, ratio []float64
				ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
				for range b.N {
					c0 := cputime.Used()
					if _, err := NonGaussian(lap, k, x, y, Lik{Kind: Logit}, grad); err != nil {
						b.Fatal(err)
					}
					c1 := cputime.Used()
					if _, err := NonGaussian(ep, k, x, y, Lik{Kind: Logit}, grad); err != nil {
						b.Fatal(err)
					}
					c2 := cputime.Used()
					l, e := ms(c1-c0), ms(c2-c1)
					tl, te = append(tl, l), append(te, e)
					if l > 0 {
						ratio = append(ratio, e/l)
					}
				}
				b.ReportMetric(medianOf(tl), "laplace-cpu-ms")
				b.ReportMetric(medianOf(te), "ep-cpu-ms")
				b.ReportMetric(medianOf(ratio), "ep/laplace")
			})
		}
	}
}

// medianOf is the median of x (the upper one for an even count), 0 when
// x is empty.
func medianOf(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}
