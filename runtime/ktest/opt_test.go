package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
)

// TestMMDCriterionByDefinition: the MMD criterion against a direct double
// loop with the kernel's own Eval: H_ij of Liu et al. (2020, eq. 4), U the
// mean of H over i ≠ j, σ̂² = 4(mean_i (mean_j H_ij)² − (mean H)²).
func TestMMDCriterionByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4001, 1))
	x, y := randomPoints(rng, 9, 2), randomPoints(rng, 7, 2)
	for i := 0; i < 7; i++ {
		y.Set(i, 0, y.At(i, 0)+0.7)
	}
	const ell, lambda = 0.8, 1e-3
	k := must(kernels.NewRBF([]float64{ell}))
	n := 7 // the first min(9, 7) rows paired
	h := func(i, j int) float64 {
		xi, xj, yi, yj := x.RawRowView(i), x.RawRowView(j), y.RawRowView(i), y.RawRowView(j)
		return k.Eval(xi, xj) + k.Eval(yi, yj) - k.Eval(xi, yj) - k.Eval(yi, xj)
	}
	var off, all, rows2 float64
	for i := 0; i < n; i++ {
		var row float64
		for j := 0; j < n; j++ {
			row += h(i, j)
			if i != j {
				off += h(i, j)
			}
		}
		all += row
		rows2 += (row / float64(n)) * (row / float64(n))
	}
	u := off / float64(n*(n-1))
	mean := all / float64(n*n)
	v := 4 * (rows2/float64(n) - mean*mean)
	got, err := MMDCriterion(x, y, ell, lambda)
	if err != nil {
		t.Fatal(err)
	}
	want := Criterion{Stat: u, Var: v, J: u / math.Sqrt(v+lambda)}
	for _, c := range [][3]any{{"U", got.Stat, want.Stat}, {"var", got.Var, want.Var}, {"J", got.J, want.J}} {
		if g, w := c[1].(float64), c[2].(float64); math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
			t.Errorf("%s = %.15g, want %.15g", c[0], g, w)
		}
	}
}

// hsicKernel4 is the order-4 kernel of the unbiased HSIC (Song et al.
// 2012): the mean over the 24 orderings (t, u, v, w) of (i, j, q, r) of
// k_tu·l_tu + k_tu·l_vw − 2·k_tu·l_tv.
func hsicKernel4(k, l *mat.Dense, idx [4]int) float64 {
	var s float64
	var perm func(p []int, used int)
	perm = func(p []int, used int) {
		if len(p) == 4 {
			a, b, c, d := p[0], p[1], p[2], p[3]
			s += k.At(a, b)*l.At(a, b) + k.At(a, b)*l.At(c, d) - 2*k.At(a, b)*l.At(a, c)
			return
		}
		for i := 0; i < 4; i++ {
			if used&(1<<i) == 0 {
				perm(append(p, idx[i]), used|1<<i)
			}
		}
	}
	perm(nil, 0)
	return s / 24
}

// TestHSICCriterionByDefinition: U and σ̂² = 16(R − U²) against the
// definitions by brute force over every ordered 4-tuple of distinct rows:
// U the mean of the order-4 kernel h, and h̄_i the mean of h(i, j, q, r)
// over the ordered triples of other rows (Song et al. 2012, Theorem 5).
// U also agrees with HSIC's unbiased estimator.
func TestHSICCriterionByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(4002, 1))
	const n = 8
	x, y := randomPoints(rng, n, 2), randomPoints(rng, n, 1)
	for i := 0; i < n; i++ {
		y.Set(i, 0, y.At(i, 0)+x.At(i, 0)*x.At(i, 1))
	}
	const ellX, ellY, lambda = 1.3, 0.6, 1e-4
	kx, ky := must(kernels.NewRBF([]float64{ellX})), must(kernels.NewRBF([]float64{ellY}))
	k, l := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			k.Set(i, j, kx.Eval(x.RawRowView(i), x.RawRowView(j)))
			l.Set(i, j, ky.Eval(y.RawRowView(i), y.RawRowView(j)))
		}
	}
	var total float64
	var count int
	hbar := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for q := 0; q < n; q++ {
				for r := 0; r < n; r++ {
					if i == j || i == q || i == r || j == q || j == r || q == r {
						continue
					}
					h := hsicKernel4(k, l, [4]int{i, j, q, r})
					total += h
					count++
					hbar[i] += h
				}
			}
		}
	}
	u := total / float64(count)
	var rr float64
	for i := range hbar {
		hbar[i] /= float64((n - 1) * (n - 2) * (n - 3))
		rr += hbar[i] * hbar[i]
	}
	v := 16 * (rr/n - u*u)
	got, err := HSICCriterion(x, y, ellX, ellY, lambda)
	if err != nil {
		t.Fatal(err)
	}
	hs, err := HSIC(kx, ky, x, y, Unbiased)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"U", got.Stat, u}, {"HSIC_u", hs, u}, {"var", got.Var, v}, {"J", got.J, u / math.Sqrt(v+lambda)}} {
		if math.Abs(c.got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
}

// TestCriterionVarianceMatchesMonteCarlo: σ̂² estimates the variance of
// √n·U under an alternative: its mean over 200 seeded data sets is within
// 25% of the variance of √n·U across them (the Monte Carlo variance's own
// relative SE is √(2/199) ≈ 10%).
func TestCriterionVarianceMatchesMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(4003, 1))
	const reps, n = 200, 60
	check := func(name string, draw func() Criterion) {
		var su, su2, sv float64
		for r := 0; r < reps; r++ {
			c := draw()
			su += c.Stat
			su2 += c.Stat * c.Stat
			sv += c.Var
		}
		mean := su / reps
		mc := n * (su2 - reps*mean*mean) / (reps - 1)
		est := sv / reps
		t.Logf("%s: mean U %.4g, Monte Carlo var(√n U) %.4g, mean σ̂² %.4g", name, mean, mc, est)
		if math.Abs(est/mc-1) > 0.25 {
			t.Errorf("%s: mean σ̂² %.4g against the Monte Carlo variance %.4g", name, est, mc)
		}
	}
	check("mmd", func() Criterion {
		x, y := randomPoints(rng, n, 1), randomPoints(rng, n, 1)
		for i := 0; i < n; i++ {
			y.Set(i, 0, 1.5*y.At(i, 0)+0.5)
		}
		c, err := MMDCriterion(x, y, 1, DefaultOptLambda)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
	check("hsic", func() Criterion {
		x, e := randomPoints(rng, n, 1), randomPoints(rng, n, 1)
		y := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			y.Set(i, 0, x.At(i, 0)+e.At(i, 0))
		}
		c, err := HSICCriterion(x, y, 1, 1, DefaultOptLambda)
		if err != nil {
			t.Fatal(err)
		}
		return c
	})
}

// optLevel runs reps seeded null replications of the opt MMD and HSIC
// tests (n rows per sample, 99 permutations; heavy: Student-t(3) data) and
// checks each rejection rate at α = 0.05 is within 3 binomial SE.
func optLevel(t *testing.T, reps, n int, heavy bool) {
	const alpha = 0.05
	draw := func(rng *rand.Rand, rows, d int) *mat.Dense {
		x := randomPoints(rng, rows, d)
		if heavy {
			for i := 0; i < rows; i++ {
				for j := 0; j < d; j++ {
					var c float64
					for k := 0; k < 3; k++ {
						g := rng.NormFloat64()
						c += g * g
					}
					x.Set(i, j, x.At(i, j)/math.Sqrt(c/3))
				}
			}
		}
		return x
	}
	for i, name := range []string{"mmd", "hsic"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(4004, uint64(i)))
			rejected := 0
			for r := 0; r < reps; r++ {
				s := Settings{Permutations: 99, Seed: uint64(r), Workers: 1}
				var res Result
				var err error
				if name == "mmd" {
					res, _, err = MMDOptTest(context.Background(), draw(rng, n, 2), draw(rng, n, 2), Permutation, OptOptions{}, s)
				} else {
					res, _, _, err = HSICOptTest(context.Background(), nil, nil, draw(rng, n, 2), draw(rng, n, 1), Permutation, OptOptions{}, s)
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.PValue <= alpha {
					rejected++
				}
			}
			se := math.Sqrt(alpha * (1 - alpha) / float64(reps))
			rate := float64(rejected) / float64(reps)
			t.Logf("%s: rejection rate under the null %.3f over %d (SE %.4f)", name, rate, reps, se)
			if math.Abs(rate-alpha) > 3*se {
				t.Errorf("rejection rate %.3f under the null, want %.2f ± %.3f", rate, alpha, 3*se)
			}
		})
	}
}

// TestOptLevelQuick: 200 null replications at 30 rows per sample (SE
// 0.0154, band ±0.046), about 1 s of CPU for both tests.
func TestOptLevelQuick(t *testing.T) { optLevel(t, 200, 30, false) }

// TestOptLevel: 1000 null replications at 60 rows (SE 0.0069, band
// ±0.021), Gaussian and Student-t(3) data.
func TestOptLevel(t *testing.T) {
	fulltest.Require(t, "4000 replications of the opt tests, about 30 s of CPU")
	t.Run("normal", func(t *testing.T) { optLevel(t, 1000, 60, false) })
	t.Run("student-t", func(t *testing.T) { optLevel(t, 1000, 60, true) })
}

// TestOptPowerRisesWithTheEffect: over 30 seeded replications per effect,
// the rejection count of the opt tests does not fall as a mean shift (MMD)
// or the dependence y = b·sin(3x) + noise (HSIC) grows, and the largest
// effect is rejected in at least 25 of 30.
func TestOptPowerRisesWithTheEffect(t *testing.T) {
	const reps, n = 30, 60
	effects := []float64{0, 0.5, 1, 2}
	for i, name := range []string{"mmd", "hsic"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(4005, uint64(i)))
			var counts []int
			for _, b := range effects {
				c := 0
				for r := 0; r < reps; r++ {
					s := Settings{Permutations: 99, Seed: uint64(r), Workers: 1}
					x, y := randomPoints(rng, n, 1), randomPoints(rng, n, 1)
					var res Result
					var err error
					if name == "mmd" {
						for j := 0; j < n; j++ {
							y.Set(j, 0, y.At(j, 0)+b)
						}
						res, _, err = MMDOptTest(context.Background(), x, y, Permutation, OptOptions{}, s)
					} else {
						for j := 0; j < n; j++ {
							y.Set(j, 0, 0.3*y.At(j, 0)+b*math.Sin(3*x.At(j, 0)))
						}
						res, _, _, err = HSICOptTest(context.Background(), nil, nil, x, y, Permutation, OptOptions{}, s)
					}
					if err != nil {
						t.Fatal(err)
					}
					if res.PValue <= 0.05 {
						c++
					}
				}
				counts = append(counts, c)
			}
			t.Logf("%s: rejections of %d at effects %v: %v", name, reps, effects, counts)
			for j := 1; j < len(counts); j++ {
				if counts[j] < counts[j-1] {
					t.Errorf("power fell from %d to %d as the effect grew to %g", counts[j-1], counts[j], effects[j])
				}
			}
			if counts[len(counts)-1] < 25 {
				t.Errorf("the largest effect was rejected %d times in %d", counts[len(counts)-1], reps)
			}
		})
	}
}

// TestOptChoosesOnTheTrainingPartOnly: the chosen lengthscale depends on the
// training rows only — changing a test row leaves it and the criterion
// unchanged — and the record's split adds up.
func TestOptChoosesOnTheTrainingPartOnly(t *testing.T) {
	rng := rand.New(rand.NewPCG(4006, 1))
	x, y := randomPoints(rng, 41, 2), randomPoints(rng, 30, 2)
	s := Settings{Permutations: 49, Seed: 3}
	_, c, err := MMDOptTest(context.Background(), x, y, Permutation, OptOptions{Train: 0.4}, s)
	if err != nil {
		t.Fatal(err)
	}
	if c.Opt.TrainRows != [2]int{16, 12} || c.Opt.TestRows != [2]int{25, 18} || c.Choice != ChoiceOpt {
		t.Errorf("split %v / %v, choice %q; want [16 12] / [25 18], opt", c.Opt.TrainRows, c.Opt.TestRows, c.Choice)
	}
	// Find a test row of x: one whose change leaves the choice alone
	// must exist (25 of 41), and a training row must change it.
	same, changed := 0, 0
	for i := 0; i < x.RawMatrix().Rows; i++ {
		x2 := mat.DenseCopyOf(x)
		x2.Set(i, 0, x2.At(i, 0)+5)
		_, c2, err := MMDOptTest(context.Background(), x2, y, Permutation, OptOptions{Train: 0.4}, s)
		if err != nil {
			t.Fatal(err)
		}
		if c2.Ell[0] == c.Ell[0] && c2.Opt.Criterion == c.Opt.Criterion {
			same++
		} else {
			changed++
		}
	}
	if same != 25 || changed != 16 {
		t.Errorf("moving a row of x left the choice alone %d times and changed it %d times; want 25 and 16", same, changed)
	}
}

func TestOptIsCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(4007, 1))
	x, y := randomPoints(rng, 40, 1), randomPoints(rng, 40, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := MMDOptTest(ctx, x, y, Permutation, OptOptions{}, Settings{}); err != context.Canceled {
		t.Errorf("mmd: err %v, want context.Canceled", err)
	}
	if _, _, _, err := HSICOptTest(ctx, nil, nil, x, y, Permutation, OptOptions{}, Settings{}); err != context.Canceled {
		t.Errorf("hsic: err %v, want context.Canceled", err)
	}
}
