package causal

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/runtime/rng"
)

// KernelSpec is how the HSIC kernel of one side is chosen: a Kernel given
// (Choice ktest.ChoiceGiven), or ChoiceMedian, ChoiceBKL, ChoiceBayes or
// ChoiceAggregate (then both sides), as hsic_test chooses.
type KernelSpec struct {
	Choice ktest.Choice
	Kernel kernels.Kernel
	// BKL are the settings of ChoiceBKL (zero: the default rules).
	BKL ktest.BKLOptions
	// Bayes configures ChoiceBayes.
	Bayes ktest.BayesSettings
}

// KernelTest is the conditional-independence test of section 5 of the BKE
// paper (after Flaxman, Neill and Smola 2015): x ⟂ y | z by GP regression
// (Regress, ML-II) of every column of x and of y on z, then the HSIC test
// of the residuals, its kernels chosen on the residuals. With z empty it
// is the HSIC test of x and y.
type KernelTest struct {
	KX, KY   KernelSpec
	Method   ktest.Method
	Settings ktest.Settings
	// Bayes, when not nil, integrates the regression step over the GP's
	// hyperparameters (RegressBayes) instead of ML-II.
	Bayes *RegressionBayes
}

// CIResult is one test's outcome: the HSIC test, the kernels chosen (not
// for the aggregate test) and the regressions of x's and y's columns (none
// when z is empty).
type CIResult struct {
	HSIC       ktest.Result
	X, Y       ktest.Chosen
	RegX, RegY []Regression
}

// side is one variable after regression on the conditioning set.
type side struct {
	resid  *mat.Dense
	regs   []Regression
	chosen ktest.Chosen
}

// residuals regresses each column of x on z (x itself when z is nil), by
// ML-II or, with bayes, RegressBayes (column j's draws seeded by regSeed
// on stream.Index(j)), and chooses the kernel by spec with seed.
func residuals(ctx context.Context, x, z *mat.Dense, spec KernelSpec, bayes *RegressionBayes, seed, regSeed uint64, stream rng.Stream) (side, error) {
	s := side{resid: x}
	if z != nil {
		n, d := x.Dims()
		s.resid = mat.NewDense(n, d, nil)
		for j := 0; j < d; j++ {
			var r Regression
			var err error
			if bayes != nil {
				r, err = RegressBayes(ctx, z, mat.Col(nil, j, x), *bayes, regSeed, stream.Index(j))
			} else {
				r, err = Regress(ctx, z, mat.Col(nil, j, x))
			}
			if err != nil {
				return s, err
			}
			s.regs = append(s.regs, r)
			s.resid.SetCol(j, r.Resid)
		}
	}
	switch spec.Choice {
	case ktest.ChoiceAggregate:
	case ktest.ChoiceGiven:
		s.chosen = ktest.Given(spec.Kernel)
	case ktest.ChoiceBKL:
		c, err := ktest.ChooseBKL(ctx, s.resid, seed, spec.BKL)
		if err != nil {
			return s, err
		}
		s.chosen = c
	case ktest.ChoiceBayes:
		c, err := ktest.ChooseBayes(ctx, s.resid, spec.Bayes, seed)
		if err != nil {
			return s, err
		}
		s.chosen = c
	default:
		c, err := ktest.Choose(ctx, spec.Choice, s.resid, seed)
		if err != nil {
			return s, err
		}
		s.chosen = c
	}
	return s, nil
}

// hsic tests the two residual sides.
func (t KernelTest) hsic(ctx context.Context, a, b side, seed uint64) (CIResult, error) {
	s := t.Settings
	s.Seed = seed
	var r ktest.Result
	var err error
	if t.KX.Choice == ktest.ChoiceAggregate {
		r, err = ktest.HSICAggregateTest(ctx, a.resid, b.resid, t.Method, s)
	} else {
		r, err = ktest.HSICTest(ctx, a.chosen.Kernel, b.chosen.Kernel, a.resid, b.resid, t.Method, s)
	}
	if err != nil {
		return CIResult{}, err
	}
	if math.IsNaN(r.PValue) {
		return CIResult{}, fmt.Errorf("the p-value is not defined for these data (constant kernel matrices?)")
	}
	return CIResult{HSIC: r, X: a.chosen, Y: b.chosen, RegX: a.regs, RegY: b.regs}, nil
}

// Test tests x ⟂ y | z (z nil or with no columns: x ⟂ y) with seed for the
// kernel choice and the permutations.
func (t KernelTest) Test(ctx context.Context, x, y, z *mat.Dense, seed uint64) (CIResult, error) {
	if t.KX.Choice == ktest.ChoiceAggregate != (t.KY.Choice == ktest.ChoiceAggregate) {
		return CIResult{}, fmt.Errorf(`the aggregate test needs both kernels "aggregate"`)
	}
	if z != nil {
		if _, c := z.Dims(); c == 0 {
			z = nil
		}
	}
	a, err := residuals(ctx, x, z, t.KX, t.Bayes, seed, seed, rng.RegressBayes)
	if err != nil {
		return CIResult{}, fmt.Errorf("x: %w", err)
	}
	b, err := residuals(ctx, y, z, t.KY, t.Bayes, seed, seed, rng.RegressBayes.Index(1<<16))
	if err != nil {
		return CIResult{}, fmt.Errorf("y: %w", err)
	}
	return t.hsic(ctx, a, b, seed)
}

// ForPC returns the test as PC's CITest on the columns of data. The
// residuals of a column on a set, and their kernel, are computed once (the
// choice seeded by seed alone, RegressBayes's draws by seed and the column
// and set); each test's permutations are seeded by
// seed and (i, j, s), so the outcome does not depend on the order of
// tests. last, when not nil, receives each test's result.
func (t KernelTest) ForPC(data *mat.Dense, seed uint64, last func(i, j int, s []int, r CIResult)) CITest {
	var mu sync.Mutex
	cache := map[string]*cached{}
	get := func(ctx context.Context, v int, s []int, spec KernelSpec) (side, error) {
		key := fmt.Sprint(v, s, spec.Choice, spec.Kernel)
		mu.Lock()
		c, ok := cache[key]
		if !ok {
			c = &cached{}
			cache[key] = c
		}
		mu.Unlock()
		c.once.Do(func() {
			x := columns(data, []int{v})
			var z *mat.Dense
			if len(s) > 0 {
				z = columns(data, s)
			}
			h := fnv.New64a()
			fmt.Fprint(h, v, s)
			c.side, c.err = residuals(ctx, x, z, spec, t.Bayes, seed, seed^h.Sum64(), rng.RegressBayes)
		})
		return c.side, c.err
	}
	return func(ctx context.Context, i, j int, s []int) (float64, error) {
		a, err := get(ctx, i, s, t.KX)
		if err != nil {
			return 0, err
		}
		b, err := get(ctx, j, s, t.KY)
		if err != nil {
			return 0, err
		}
		h := fnv.New64a()
		fmt.Fprint(h, i, j, s)
		r, err := t.hsic(ctx, a, b, seed^h.Sum64())
		if err != nil {
			return 0, err
		}
		if last != nil {
			last(i, j, s, r)
		}
		return r.HSIC.PValue, nil
	}
}

type cached struct {
	once sync.Once
	side side
	err  error
}

// columns copies the columns cols of data.
func columns(data *mat.Dense, cols []int) *mat.Dense {
	n, _ := data.Dims()
	out := mat.NewDense(n, len(cols), nil)
	for k, c := range cols {
		for i := 0; i < n; i++ {
			out.Set(i, k, data.At(i, c))
		}
	}
	return out
}
