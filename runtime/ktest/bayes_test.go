package ktest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// bayesFast are small NUTS settings for the tests.
var bayesFast = BayesSettings{Draws: 8, Warmup: 100, Workers: 1}

func pooled(x, y *mat.Dense) *mat.Dense {
	var z mat.Dense
	z.Stack(x, y)
	return &z
}

// TestBayesStatisticIsTheMeanOverDraws: the test with the averaged kernel
// has for its statistic the mean of the per-lengthscale statistics, MMD²
// over the S draws and HSIC over all S_x·S_y pairs of draws, computed
// independently with rbf(ℓ), to 1e-12.
func TestBayesStatisticIsTheMeanOverDraws(t *testing.T) {
	rng := rand.New(rand.NewPCG(2601, 3))
	x, y := randomPoints(rng, 30, 2), randomPoints(rng, 25, 2)
	for i := 0; i < 25; i++ {
		y.Set(i, 0, y.At(i, 0)+0.5)
	}
	c, err := ChooseBayes(context.Background(), pooled(x, y), bayesFast, 11)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ell) != bayesFast.Draws || c.Choice != ChoiceBayes || c.Bayes == nil {
		t.Fatalf("chosen %+v", c)
	}
	for _, est := range []Estimator{Unbiased, Biased, Linear} {
		want := 0.0
		for _, l := range c.Ell {
			v, err := MMD2(must(kernels.NewRBF([]float64{l})), x, y, est)
			if err != nil {
				t.Fatal(err)
			}
			want += v / float64(len(c.Ell))
		}
		got, err := MMD2(c.Kernel, x, y, est)
		if err != nil {
			t.Fatal(err)
		}
		r, err := MMDTest(context.Background(), c.Kernel, x, y, Settings{Permutations: 20, Seed: 1, Estimator: est, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-12 || math.Abs(r.Statistic-want) > 1e-12 {
			t.Errorf("mmd %s: averaged kernel %.17g, test %.17g, mean over draws %.17g", est, got, r.Statistic, want)
		}
	}

	hy := mat.NewDense(30, 1, nil)
	for i := 0; i < 30; i++ {
		hy.Set(i, 0, x.At(i, 0)*x.At(i, 1)+0.3*rng.NormFloat64())
	}
	cx, err := ChooseBayes(context.Background(), x, bayesFast, 12)
	if err != nil {
		t.Fatal(err)
	}
	cy, err := ChooseBayes(context.Background(), hy, BayesSettings{Draws: 5, Warmup: 100, Workers: 1}, 13)
	if err != nil {
		t.Fatal(err)
	}
	for _, est := range []Estimator{Biased, Unbiased} {
		want := 0.0
		for _, lx := range cx.Ell {
			for _, ly := range cy.Ell {
				v, err := HSIC(must(kernels.NewRBF([]float64{lx})), must(kernels.NewRBF([]float64{ly})), x, hy, est)
				if err != nil {
					t.Fatal(err)
				}
				want += v / float64(len(cx.Ell)*len(cy.Ell))
			}
		}
		r, err := HSICTest(context.Background(), cx.Kernel, cy.Kernel, x, hy, Permutation, Settings{Permutations: 20, Seed: 1, Estimator: est, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Statistic-want) > 1e-12 {
			t.Errorf("hsic %s: averaged kernels %.17g, mean over pairs of draws %.17g", est, r.Statistic, want)
		}
	}
}

// TestBayesOneDrawIsTheGivenKernelTest: with S = 1 the averaged kernel is
// rbf(ℓ) and the test is the given-kernel test, statistic and p-value.
func TestBayesOneDrawIsTheGivenKernelTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(2602, 3))
	x, y := randomPoints(rng, 25, 2), randomPoints(rng, 25, 2)
	for i := 0; i < 25; i++ {
		y.Set(i, 1, y.At(i, 1)*1.5)
	}
	k1 := must(NewMeanRBF([]float64{0.8}))
	rbf := must(kernels.NewRBF([]float64{0.8}))
	s := Settings{Permutations: 199, Seed: 5, Workers: 1}
	a, err := MMDTest(context.Background(), k1, x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := MMDTest(context.Background(), rbf, x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Statistic-b.Statistic) > 1e-12 || a.PValue != b.PValue {
		t.Errorf("mmd: one draw %v (p %v), given %v (p %v)", a.Statistic, a.PValue, b.Statistic, b.PValue)
	}
	a, err = HSICTest(context.Background(), k1, k1, x, y, Permutation, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err = HSICTest(context.Background(), rbf, rbf, x, y, Permutation, s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Statistic-b.Statistic) > 1e-12 || a.PValue != b.PValue {
		t.Errorf("hsic: one draw %v (p %v), given %v (p %v)", a.Statistic, a.PValue, b.Statistic, b.PValue)
	}
	// And the S = 1 kernel evaluates as rbf does, with its gradients.
	p, q := []float64{0.3, -1}, []float64{1.1, 0.4}
	gh, gx := make([]float64, 1), make([]float64, 2)
	wh, wx := make([]float64, 1), make([]float64, 2)
	if k1.Eval(p, q) != rbf.Eval(p, q) || k1.GradHyper(gh, p, q) != rbf.GradHyper(wh, p, q) || k1.GradX(gx, p, q) != rbf.GradX(wx, p, q) {
		t.Errorf("values differ")
	}
	if math.Abs(gh[0]-wh[0]) > 1e-15 || math.Abs(gx[0]-wx[0]) > 1e-15 || math.Abs(gx[1]-wx[1]) > 1e-15 {
		t.Errorf("gradients %v %v, rbf %v %v", gh, gx, wh, wx)
	}
}

// TestBayesDrawsDependOnTheMultisetOnly: the draws (hence the kernel) do
// not change when the rows are permuted, which is what makes the
// permutation test exact.
func TestBayesDrawsDependOnTheMultisetOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(2603, 3))
	z := randomPoints(rng, 40, 1)
	perm := rng.Perm(40)
	zp := mat.NewDense(40, 1, nil)
	for i, p := range perm {
		zp.SetRow(i, z.RawRowView(p))
	}
	a, err := ChooseBayes(context.Background(), z, bayesFast, 21)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ChooseBayes(context.Background(), zp, bayesFast, 21)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Ell {
		if a.Ell[i] != b.Ell[i] {
			t.Fatalf("draw %d: %v, after permuting the rows %v", i, a.Ell[i], b.Ell[i])
		}
	}
	if a.Bayes.Divergences > 0 || !(a.Bayes.Rhat < 1.1) || !(a.Bayes.Q5 <= a.Bayes.Mean && a.Bayes.Mean <= a.Bayes.Q95) {
		t.Errorf("diagnostics %+v", a.Bayes)
	}
	if a.Landmarks != 8 || a.Tau2 != 1 {
		t.Errorf("landmarks %d, tau2 %v", a.Landmarks, a.Tau2)
	}
}

// TestMeanRBFGradients checks GradHyper and GradX by central differences.
func TestMeanRBFGradients(t *testing.T) {
	k := must(NewMeanRBF([]float64{0.5, 1.3, 2}))
	x, y := []float64{0.2, -0.7}, []float64{1, 0.1}
	gh, gx := make([]float64, 3), make([]float64, 2)
	v := k.GradHyper(gh, x, y)
	if v2 := k.GradX(gx, x, y); v != k.Eval(x, y) || v2 != v {
		t.Fatalf("values %v %v %v", v, v2, k.Eval(x, y))
	}
	const h = 1e-6
	for i := range gh {
		up, dn := append([]float64(nil), k.Ell...), append([]float64(nil), k.Ell...)
		up[i] += h
		dn[i] -= h
		fd := (must(NewMeanRBF(up)).Eval(x, y) - must(NewMeanRBF(dn)).Eval(x, y)) / (2 * h)
		if math.Abs(fd-gh[i]) > 1e-8 {
			t.Errorf("d/d ell.%d = %v, differences %v", i+1, gh[i], fd)
		}
	}
	for d := range gx {
		up, dn := append([]float64(nil), x...), append([]float64(nil), x...)
		up[d] += h
		dn[d] -= h
		fd := (k.Eval(up, y) - k.Eval(dn, y)) / (2 * h)
		if math.Abs(fd-gx[d]) > 1e-8 {
			t.Errorf("d/dx_%d = %v, differences %v", d+1, gx[d], fd)
		}
	}
	if k2, err := k.WithHyper([]float64{1, 1, -1}); err == nil {
		t.Errorf("negative lengthscale accepted: %v", k2)
	}
}

// TestBayesPower: on clear differences the tests reject.
func TestBayesPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(2604, 3))
	x, y := randomPoints(rng, 40, 1), randomPoints(rng, 40, 1)
	for i := 0; i < 40; i++ {
		y.Set(i, 0, y.At(i, 0)+1.5)
	}
	s := Settings{Permutations: 199, Seed: 7, Workers: 1}
	c, err := ChooseBayes(context.Background(), pooled(x, y), bayesFast, 7)
	if err != nil {
		t.Fatal(err)
	}
	r, err := MMDTest(context.Background(), c.Kernel, x, y, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.PValue > 0.01 {
		t.Errorf("mmd: p-value %v under a mean shift of 1.5 sd", r.PValue)
	}
	hy := mat.NewDense(40, 1, nil)
	for i := 0; i < 40; i++ {
		hy.Set(i, 0, x.At(i, 0)*x.At(i, 0)+0.2*rng.NormFloat64())
	}
	cx, err := ChooseBayes(context.Background(), x, bayesFast, 8)
	if err != nil {
		t.Fatal(err)
	}
	cy, err := ChooseBayes(context.Background(), hy, bayesFast, 9)
	if err != nil {
		t.Fatal(err)
	}
	r, err = HSICTest(context.Background(), cx.Kernel, cy.Kernel, x, hy, Permutation, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.PValue > 0.01 {
		t.Errorf("hsic: p-value %v for y = x² + noise", r.PValue)
	}
}

// studentPoints are n×d independent Student-t draws with 3 degrees of
// freedom: heavy tails, where a lengthscale chosen on the data can sit at
// the spacing of the bulk or of the outliers.
func studentPoints(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			var c float64
			for k := 0; k < 3; k++ {
				g := rng.NormFloat64()
				c += g * g
			}
			x.Set(i, j, rng.NormFloat64()/math.Sqrt(c/3))
		}
	}
	return x
}

// bayesLevel runs reps seeded replications of the "bayes" test under the
// null (n + n standard normal rows for MMD; n independent pairs for HSIC;
// Student-t(3) rows when heavy) on two goroutines and returns the
// rejection rate at α = 0.05.
func bayesLevel(t *testing.T, hsic, heavy bool, reps, n, perms int, bs BayesSettings) float64 {
	choose := func(data *mat.Dense, seed uint64) (Chosen, error) {
		return ChooseBayes(context.Background(), data, bs, seed)
	}
	return choiceLevel(t, choose, 2605, hsic, heavy, reps, n, perms)
}

// choiceLevel runs reps seeded replications under the null of the test
// whose kernel choose picks (from the pooled sample for MMD, from each
// variable for HSIC) and returns the rejection rate at α = 0.05. The data
// of replication r come from the stream (r, stream), stream + 1 for HSIC
// and + 2 for heavy tails; r + 1000 seeds the choice and permutations.
func choiceLevel(t *testing.T, choose func(*mat.Dense, uint64) (Chosen, error), stream uint64, hsic, heavy bool, reps, n, perms int) float64 {
	const alpha = 0.05
	var mu sync.Mutex
	rejected := 0
	next := 0
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				r := next
				next++
				mu.Unlock()
				if r >= reps {
					return
				}
				stream := stream
				if hsic {
					stream++
				}
				if heavy {
					stream += 2
				}
				rng := rand.New(rand.NewPCG(uint64(r), stream))
				randomPoints := randomPoints
				if heavy {
					randomPoints = studentPoints
				}
				seed := uint64(r) + 1000
				s := Settings{Permutations: perms, Seed: seed, Workers: 1}
				var res Result
				var err error
				if hsic {
					x, y := randomPoints(rng, n, 2), randomPoints(rng, n, 1)
					var cx, cy Chosen
					if cx, err = choose(x, seed); err == nil {
						if cy, err = choose(y, seed); err == nil {
							res, err = HSICTest(context.Background(), cx.Kernel, cy.Kernel, x, y, Permutation, s)
						}
					}
				} else {
					x, y := randomPoints(rng, n, 2), randomPoints(rng, n, 2)
					var c Chosen
					if c, err = choose(pooled(x, y), seed); err == nil {
						res, err = MMDTest(context.Background(), c.Kernel, x, y, s)
					}
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if res.PValue <= alpha {
					rejected++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return float64(rejected) / float64(reps)
}

// TestBayesLevelUnderTheNull: the rejection rate of the "bayes" tests at
// α = 0.05 lies within 3 SE of α over seeded replications. The default
// run is a smoke test (30 replications of 25 + 25 rows, S = 10, short
// chains; band ±0.119); KML_LONG=1 runs the validation at the default
// NUTS settings (200 replications of 40 + 40 rows, S = 20, 199
// permutations; SE 0.0154, band ±0.046), normal and Student-t(3) data:
//
//	KML_LONG=1 go test ./runtime/ktest -run TestBayesLevel -v
func TestBayesLevelUnderTheNull(t *testing.T) {
	reps, n, perms := 30, 25, 99
	bs := BayesSettings{Draws: 10, Warmup: 100, PerChain: 50, Workers: 1}
	cases := []struct {
		name        string
		hsic, heavy bool
	}{{"mmd", false, false}, {"hsic", true, false}}
	if os.Getenv("KML_LONG") != "" {
		reps, n, perms = 200, 40, 199
		bs = BayesSettings{Workers: 1}
		cases = append(cases, struct {
			name        string
			hsic, heavy bool
		}{"mmd t3", false, true}, struct {
			name        string
			hsic, heavy bool
		}{"hsic t3", true, true})
	}
	const alpha = 0.05
	se := math.Sqrt(alpha * (1 - alpha) / float64(reps))
	for _, c := range cases {
		name := c.name
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			rate := bayesLevel(t, c.hsic, c.heavy, reps, n, perms, bs)
			if math.Abs(rate-alpha) > 3*se {
				t.Errorf("rejection rate %.3f under the null, want %.2f ± %.3f", rate, alpha, 3*se)
			}
			t.Logf("%s: rejection rate %.3f ± %.4f (SE) over %d replications, n = %d, S = %d, %d permutations, %.1f s",
				name, rate, se, reps, n, bs.withDefaults().Draws, perms, time.Since(start).Seconds())
		})
	}
}

// TestBayesWarnsAtSummaryThresholds: the NUTS run's R-hat and ESS are
// judged by the thresholds summary uses (hmc.RhatLimit, hmc.ESSPerChain per
// chain), and each warning gives the number. Short runs (50 iterations per
// chain) fall below the ESS threshold; whether each run warns is checked
// against its own diagnostics.
func TestBayesWarnsAtSummaryThresholds(t *testing.T) {
	rng := rand.New(rand.NewPCG(2604, 4))
	z := randomPoints(rng, 60, 1)
	warned := 0
	for seed := uint64(1); seed <= 4; seed++ {
		s := BayesSettings{Draws: 8, Warmup: 100, PerChain: 50, Workers: 1}
		c, err := ChooseBayes(context.Background(), z, s, seed)
		if err != nil {
			t.Fatal(err)
		}
		info := c.Bayes
		find := func(prefix string) string {
			for _, w := range info.Warnings {
				if strings.HasPrefix(w, prefix) {
					return w
				}
			}
			return ""
		}
		rw, ew := find("R-hat"), find("effective sample size")
		if (info.Rhat > 1.01) != (rw != "") || rw != "" && !strings.Contains(rw, fmt.Sprintf("%.3f, above 1.01", info.Rhat)) {
			t.Errorf("seed %d: R-hat %v, warning %q", seed, info.Rhat, rw)
		}
		if (info.ESS < 200) != (ew != "") || ew != "" && !strings.Contains(ew, fmt.Sprintf("%.0f, below 200", info.ESS)) {
			t.Errorf("seed %d: ESS %v, warning %q", seed, info.ESS, ew)
		}
		if rw != "" || ew != "" {
			warned++
		}
	}
	if warned == 0 {
		t.Error("no run of 2 chains × 50 iterations warned")
	}
}
