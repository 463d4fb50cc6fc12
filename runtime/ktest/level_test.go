package ktest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
)

// levelCase is one variant of a test run on data drawn under its null.
type levelCase struct {
	name string
	reps int
	// long marks a variant the README's run leaves to CI (fulltest).
	long bool
	run  func(rng *rand.Rand, seed uint64) (Result, error)
}

// chosen returns the kernel a rule picks from data (the pooled sample for
// MMD, one variable for HSIC), or the fixed rbf(1) for ChoiceGiven.
func chosen(c Choice, data *mat.Dense, seed uint64) (kernels.Kernel, error) {
	if c == ChoiceGiven {
		return kernels.NewRBF([]float64{1})
	}
	ch, err := Choose(context.Background(), c, data, seed)
	return ch.Kernel, err
}

func levelCases() []levelCase {
	var cases []levelCase
	const perms = 99
	choices := []Choice{ChoiceGiven, ChoiceMedian, ChoiceBKL, ChoiceAggregate}
	reps := func(c Choice) int {
		switch {
		case c == ChoiceBKL && os.Getenv("KML_LONG") == "" && !fulltest.Enabled():
			// 13 s of CPU at 150: TestBKLLevelUnderTheNull is BKL's
			// level check, under KML_LONG.
			return 40
		case c == ChoiceBKL || c == ChoiceAggregate:
			return 150
		}
		return 300
	}
	// BKL's choice is most of this test's processor time (5 s at 40
	// replications a variant): the README's run checks it in one variant,
	// mmd unbiased; CI (fulltest) checks it in all, at 150 replications.
	long := func(c Choice, first bool) bool { return c == ChoiceBKL && !first }
	for i, est := range []Estimator{Unbiased, Biased, Linear} {
		for _, c := range choices {
			cases = append(cases, levelCase{fmt.Sprintf("mmd %s %s", est, c), reps(c), long(c, i == 0), func(rng *rand.Rand, seed uint64) (Result, error) {
				x, y := randomPoints(rng, 30, 2), randomPoints(rng, 30, 2)
				s := Settings{Permutations: perms, Seed: seed, Estimator: est, Workers: 1}
				if c == ChoiceAggregate {
					s.Bandwidths = 5
					return MMDAggregateTest(context.Background(), x, y, s)
				}
				var z mat.Dense
				z.Stack(x, y)
				k, err := chosen(c, &z, seed)
				if err != nil {
					return Result{}, err
				}
				return MMDTest(context.Background(), k, x, y, s)
			}})
		}
	}
	for _, c := range []Choice{ChoiceGiven, ChoiceMedian} {
		cases = append(cases, levelCase{"mmd gamma " + string(c), 300, false, func(rng *rand.Rand, seed uint64) (Result, error) {
			x, y := randomPoints(rng, 100, 1), randomPoints(rng, 100, 1)
			var z mat.Dense
			z.Stack(x, y)
			k, err := chosen(c, &z, seed)
			if err != nil {
				return Result{}, err
			}
			return MMDGammaTest(k, x, y, Settings{})
		}})
	}
	for _, a := range []Approx{Nystrom, RFF} {
		cases = append(cases, levelCase{"mmd low-rank " + string(a), 300, false, func(rng *rand.Rand, seed uint64) (Result, error) {
			x, y := randomPoints(rng, 30, 2), randomPoints(rng, 30, 2)
			return MMDTest(context.Background(), must(kernels.NewRBF([]float64{1})), x, y,
				Settings{Permutations: perms, Seed: seed, Approx: a, Rank: 20, Workers: 1})
		}})
	}
	type hv struct {
		est    Estimator
		method Method
		n      int
	}
	for _, v := range []hv{{Biased, Permutation, 30}, {Unbiased, Permutation, 30}, {Biased, Gamma, 100}} {
		for _, c := range choices {
			cases = append(cases, levelCase{fmt.Sprintf("hsic %s %s %s", v.est, v.method, c), reps(c), long(c, false), func(rng *rand.Rand, seed uint64) (Result, error) {
				x, y := randomPoints(rng, v.n, 2), randomPoints(rng, v.n, 1)
				s := Settings{Permutations: perms, Seed: seed, Estimator: v.est, Workers: 1}
				if c == ChoiceAggregate {
					s.Bandwidths = 3
					return HSICAggregateTest(context.Background(), x, y, v.method, s)
				}
				kx, err := chosen(c, x, seed)
				if err != nil {
					return Result{}, err
				}
				ky, err := chosen(c, y, seed)
				if err != nil {
					return Result{}, err
				}
				return HSICTest(context.Background(), kx, ky, x, y, v.method, s)
			}})
		}
	}
	cases = append(cases, levelCase{"hsic low-rank nystrom", 300, false, func(rng *rand.Rand, seed uint64) (Result, error) {
		x, y := randomPoints(rng, 30, 2), randomPoints(rng, 30, 1)
		k := must(kernels.NewRBF([]float64{1}))
		return HSICTest(context.Background(), k, k, x, y, Permutation,
			Settings{Permutations: perms, Seed: seed, Approx: Nystrom, Rank: 10, Workers: 1})
	}})
	return cases
}

// TestLevelUnderTheNull checks that every variant rejects at rate
// α = 0.05 within three standard errors when the null holds (P = Q, or x
// and y independent), over seeded replications: 300 for the fast variants
// (SE 0.0126, so the band is 0.05 ± 0.038) and 150 for BKL and the
// aggregate tests (SE 0.0178, band ± 0.053). BKL's choice is the slow
// part (13 s of CPU at 150 replications): the README's run checks it in
// one variant (mmd unbiased) at 40 replications (SE 0.0345, band ± 0.103,
// which still catches a test that rejects a fifth of the time); with
// KML_FULL (CI) or KML_LONG every variant runs it at 150, and KML_LONG
// also runs TestBKLLevelUnderTheNull, its 200-replication check. Each
// variant has its own stream, and the variants run in parallel.
func TestLevelUnderTheNull(t *testing.T) {
	const alpha = 0.05
	for i, tc := range levelCases() {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long {
				fulltest.Require(t, "the level of bkl's choice in one more variant")
			}
			t.Parallel()
			rng := rand.New(rand.NewPCG(25, uint64(26+i)))
			rejected := 0
			for r := 0; r < tc.reps; r++ {
				res, err := tc.run(rng, uint64(r))
				if err != nil {
					t.Fatal(err)
				}
				if res.PValue <= alpha {
					rejected++
				}
			}
			se := math.Sqrt(alpha * (1 - alpha) / float64(tc.reps))
			rate := float64(rejected) / float64(tc.reps)
			if math.Abs(rate-alpha) > 3*se {
				t.Errorf("rejection rate %.3f under the null, want %.2f ± %.3f", rate, alpha, 3*se)
			}
			t.Logf("rejection rate under the null %.3f (SE %.4f)", rate, se)
		})
	}
}

// TestPowerUnderClearAlternatives: each test family rejects shifted means
// or y a function of x.
func TestPowerUnderClearAlternatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	k := must(kernels.NewRBF([]float64{1}))
	x, y := randomPoints(rng, 60, 1), randomPoints(rng, 60, 1)
	for i := 0; i < 60; i++ {
		y.Set(i, 0, y.At(i, 0)+1.5)
	}
	xl, yl := randomPoints(rng, 400, 1), randomPoints(rng, 400, 1)
	for i := 0; i < 400; i++ {
		yl.Set(i, 0, yl.At(i, 0)+1.5)
	}
	hy := mat.NewDense(60, 1, nil)
	for i := 0; i < 60; i++ {
		hy.Set(i, 0, x.At(i, 0)*x.At(i, 0)+0.1*rng.NormFloat64())
	}
	s := Settings{Permutations: 199, Seed: 7}
	check := func(name string, r Result, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if r.PValue > 0.01 {
			t.Errorf("%s: p-value %v under a clear alternative", name, r.PValue)
		}
	}
	r, err := MMDTest(context.Background(), k, x, y, s)
	check("mmd", r, err)
	r, err = MMDTest(context.Background(), k, xl, yl, Settings{Permutations: 199, Seed: 7, Estimator: Linear})
	check("mmd linear", r, err)
	r, err = MMDAggregateTest(context.Background(), x, y, s)
	check("mmd aggregate", r, err)
	r, err = MMDGammaTest(k, x, y, Settings{})
	check("mmd gamma", r, err)
	r, err = HSICTest(context.Background(), k, k, x, hy, Permutation, s)
	check("hsic", r, err)
	// Each kernel of the family whose null maximum is not the data's can
	// make a permutation's min-p as small as the data's, so the aggregate
	// p-value needs more permutations to go far below (1 + Λ)/(1 + B).
	r, err = HSICAggregateTest(context.Background(), x, hy, Permutation, Settings{Permutations: 999, Seed: 7})
	check("hsic aggregate", r, err)
	r, err = HSICAggregateTest(context.Background(), x, hy, Gamma, s)
	check("hsic aggregate gamma", r, err)
}
