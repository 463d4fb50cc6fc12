package stdlib

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/ktest"
)

func init() {
	eval.Register(`mmd(x, y, k, estimator = "unbiased")`,
		`The squared maximum mean discrepancy between the samples x and y (rows are observations) with kernel k: "unbiased" (the U-statistic; sizes may differ), "biased" (mean(Kxx) + mean(Kyy) - 2 mean(Kxy)) or "linear" (consecutive pairs, the first min(m, n) rows of each).`,
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := twoSamples(a)
			if err != nil {
				return nil, err
			}
			var k kernel
			var est string
			if err := a.Unpack("k", &k, "estimator", &est); err != nil {
				return nil, err
			}
			v, err := ktest.MMD2(k.K, x, y, ktest.Estimator(est))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.Num(v), nil
		})
	eval.Register(`hsic(x, y, kx, ky, estimator = "biased")`,
		`The Hilbert–Schmidt independence criterion between paired rows of x and y with kernels kx and ky: "biased" (tr(KHLH)/n²) or "unbiased" (Song et al. 2012).`,
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := twoSamples(a)
			if err != nil {
				return nil, err
			}
			var kx, ky kernel
			var est string
			if err := a.Unpack("kx", &kx, "ky", &ky, "estimator", &est); err != nil {
				return nil, err
			}
			v, err := ktest.HSIC(kx.K, ky.K, x, y, ktest.Estimator(est))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.Num(v), nil
		})
	eval.Register(`mmd_test(x, y, k, permutations = 1000, seed?, estimator = "unbiased")`,
		`The kernel two-sample test of P = Q with a permutation null (seeded, run in parallel). k is a kernel, or "median" (rbf with the median heuristic on the pooled sample), "bkl" (rbf with the BKL lengthscale of the pooled sample) or "aggregate" (rbf kernels at median × 2^k, k = -2..2, combined as a maximum of standardised statistics). Returns {statistic, pvalue, estimator, method, permutations, kernel}.`,
		mmdTest)
	eval.Register(`hsic_test(x, y, kx, ky, method = "permutation", permutations = 1000, seed?, estimator = "biased")`,
		`The kernel independence test between paired rows of x and y: method "permutation" (y's rows permuted) or "gamma" (Gretton et al. 2008's gamma approximation, biased estimator). kx and ky are kernels or "median" or "bkl". Returns {statistic, pvalue, estimator, method, permutations, kernel_x, kernel_y}.`,
		hsicTest)
}

func twoSamples(a *eval.Args) (*mat.Dense, *mat.Dense, error) {
	var x, y *mat.Dense
	if err := a.Unpack("x", &x, "y", &y); err != nil {
		return nil, nil, err
	}
	if x.IsEmpty() {
		return nil, nil, a.Errorf("x", "the sample x is empty")
	}
	if y.IsEmpty() {
		return nil, nil, a.Errorf("y", "the sample y is empty")
	}
	return x, y, nil
}

// chooseKernel resolves a kernel argument that may name a rule.
func chooseKernel(a *eval.Args, name string, data *mat.Dense, seed uint64) (kernels.Kernel, error) {
	switch v := a.Value(name).(type) {
	case *KernelVal:
		return v.K, nil
	case eval.Str:
		switch v {
		case "median":
			m, err := kernels.MedianHeuristic(data, seed)
			if err != nil {
				return nil, a.Errorf(name, "%v", err)
			}
			if m == 0 {
				return nil, a.Errorf(name, "the median distance is 0: every pair of points coincides")
			}
			return kernels.NewRBF([]float64{m})
		case "bkl":
			n, d := data.Dims()
			m := min(50, n/5)
			if m < max(d, 1) {
				return nil, a.Errorf(name, "too few rows (%d) to hold out landmarks for bkl", n)
			}
			rest, z := bke.Split(data, m, seed)
			r, err := bke.BKL(rest, z, bke.BKLSettings{})
			if err != nil {
				return nil, a.Errorf(name, "%v", err)
			}
			return kernels.NewRBF([]float64{r.Ell})
		}
	}
	return nil, a.Errorf(name, `%s must be a kernel, "median" or "bkl", got %s`, name, eval.Describe(a.Value(name)))
}

func result(r ktest.Result) eval.Value {
	rec := eval.NewRecord()
	rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).
		Set("estimator", eval.Str(r.Estimator)).Set("method", eval.Str(r.Method))
	if r.Permutations > 0 {
		rec.Set("permutations", eval.Num(r.Permutations))
	}
	if r.KernelY != "" {
		rec.Set("kernel_x", eval.Str(r.Kernel)).Set("kernel_y", eval.Str(r.KernelY))
	} else {
		rec.Set("kernel", eval.Str(r.Kernel))
	}
	if r.Bandwidths != nil {
		rec.Set("bandwidths", &eval.Vec{Data: r.Bandwidths})
	}
	return rec
}

func testSettings(a *eval.Args) (ktest.Settings, error) {
	var s ktest.Settings
	var err error
	if s.Permutations, err = intArg(a, "permutations", 1, eval.MaxLength); err != nil {
		return s, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return s, err
	}
	var est string
	err = a.Unpack("estimator", &est)
	s.Estimator = ktest.Estimator(est)
	return s, err
}

func mmdTest(a *eval.Args) (eval.Value, error) {
	x, y, err := twoSamples(a)
	if err != nil {
		return nil, err
	}
	s, err := testSettings(a)
	if err != nil {
		return nil, err
	}
	if v, ok := a.Value("k").(eval.Str); ok && v == "aggregate" {
		r, err := ktest.MMDAggregateTest(a.Th.Context(), x, y, s)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return result(r), nil
	}
	rx, dx := x.Dims()
	ry, dy := y.Dims()
	if dx != dy {
		return nil, a.Fail("the samples have different numbers of columns: %d×%d and %d×%d", rx, dx, ry, dy)
	}
	var pooled mat.Dense
	pooled.Stack(x, y)
	k, err := chooseKernel(a, "k", &pooled, s.Seed)
	if err != nil {
		return nil, err
	}
	r, err := ktest.MMDTest(a.Th.Context(), k, x, y, s)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return result(r), nil
}

func hsicTest(a *eval.Args) (eval.Value, error) {
	x, y, err := twoSamples(a)
	if err != nil {
		return nil, err
	}
	s, err := testSettings(a)
	if err != nil {
		return nil, err
	}
	var method string
	if err := a.Unpack("method", &method); err != nil {
		return nil, err
	}
	kx, err := chooseKernel(a, "kx", x, s.Seed)
	if err != nil {
		return nil, err
	}
	ky, err := chooseKernel(a, "ky", y, s.Seed)
	if err != nil {
		return nil, err
	}
	r, err := ktest.HSICTest(a.Th.Context(), kx, ky, x, y, ktest.Method(method), s)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	if math.IsNaN(r.PValue) {
		return nil, a.Fail("the p-value is not defined for these data (constant kernel matrices?)")
	}
	return result(r), nil
}
