package ktest

import (
	"context"
	"fmt"
	"hash/fnv"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
	"github.com/kml-lang/kml/runtime/kernels"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/kernel"
)

// CIMethods are ci_test's methods that this package runs (the others are
// stdlib/causal's GP-residual HSIC test).
var CIMethods = map[string]bool{"kci": true, "rcit": true}

// CITest runs ci_test(x, y, z, kx, ky, method: "kci" | "rcit",
// features:, seed:) on x, y and z as read by ci_test (z may be empty),
// each standardised to mean 0 and sd 1 first, and returns its
// record.
func CITest(a *eval.Args, method string, x, y, z *mat.Dense) (eval.Value, error) {
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	std := func(name string, m *mat.Dense) (*mat.Dense, error) {
		if m == nil || m.IsEmpty() {
			return nil, nil
		}
		s, err := rcausal.Standardise(m)
		if err != nil {
			return nil, a.Errorf(name, "%v", err)
		}
		return s, nil
	}
	if x, err = std("x", x); err != nil {
		return nil, err
	}
	if y, err = std("y", y); err != nil {
		return nil, err
	}
	if z, err = std("z", z); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	rec := eval.NewRecord()
	switch method {
	case "kci":
		if err := a.CheckDense(n, 8*n, "KCI's n×n matrices", `use method: "rcit" (random features, no n×n matrix)`); err != nil {
			return nil, err
		}
		ks := make([]kernels.Kernel, 2)
		for i, name := range []string{"kx", "ky"} {
			switch v := a.Value(name).(type) {
			case *kernel.KernelVal:
				ks[i] = v.K
			case eval.Str:
				if v != "median" {
					return nil, a.Errorf(name, `with method "kci", %s must be a kernel or "median", got %q`, name, string(v))
				}
			default:
				return nil, a.Errorf(name, `with method "kci", %s must be a kernel or "median", got %s`, name, eval.Describe(v))
			}
		}
		r, err := rktest.KCITest(a.Context(), x, y, z, ks[0], ks[1], nil, 0, seed)
		if err != nil {
			if e := a.Th.Context().Err(); e != nil {
				return nil, a.Interrupted(e)
			}
			return nil, a.Fail("%v", err)
		}
		rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).Set("method", eval.Str("kci")).
			Set("null", eval.NewRecord().Set("approx", eval.Str("gamma")).Set("mean", eval.Num(r.NullMean)).Set("variance", eval.Num(r.NullVar))).
			Set("kernel_x", eval.Str(r.KernelX)).Set("kernel_y", eval.Str(r.KernelY)).Set("kernel_z", eval.Str(r.KernelZ)).
			Set("epsilon", eval.Num(r.Epsilon)).Set("n", eval.Num(n))
	case "rcit":
		for _, name := range []string{"kx", "ky"} {
			if v, ok := a.Value(name).(eval.Str); !ok || v != "median" {
				return nil, a.Errorf(name, `with method "rcit", %s must be "median" (the random features are of rbf at each variable's median heuristic)`, name)
			}
		}
		f, err := a.IntIn("features", 1, 10000)
		if err != nil {
			return nil, err
		}
		r, err := rktest.RCITTest(a.Context(), x, y, z, f, 0, rktest.LPB4, seed)
		if err != nil {
			if e := a.Th.Context().Err(); e != nil {
				return nil, a.Interrupted(e)
			}
			return nil, a.Fail("%v", err)
		}
		ell := eval.NewRecord().Set("x", eval.Num(r.Ell[0])).Set("y", eval.Num(r.Ell[1]))
		if z != nil {
			ell.Set("z", eval.Num(r.Ell[2]))
		}
		rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).Set("method", eval.Str("rcit")).
			Set("null", eval.NewRecord().Set("approx", eval.Str(r.Approx)).Set("mean", eval.Num(r.NullMean)).Set("variance", eval.Num(r.NullVar))).
			Set("features", eval.NewRecord().Set("z", eval.Num(r.Features)).Set("xy", eval.Num(r.FeaturesXY))).
			Set("ell", ell).Set("seed", eval.Num(float64(seed))).Set("n", eval.Num(n))
	}
	return rec, nil
}

// CIForPC returns KCI (rbf kernels at the median heuristic) or RCIT as
// pc's test on the columns of data: x = column i, y = column j, z the
// columns of s, each standardised. Test (i, j, s) is seeded by seed and
// (i, j, s), so the graph does not depend on the order of the tests.
func CIForPC(method string, data *mat.Dense, features int, seed uint64) rcausal.CITest {
	return func(ctx context.Context, i, j int, s []int) (float64, error) {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, _ := data.Dims()
		cols := func(idx ...int) (*mat.Dense, error) {
			if len(idx) == 0 {
				return nil, nil
			}
			m := mat.NewDense(n, len(idx), nil)
			for c, k := range idx {
				m.SetCol(c, mat.Col(nil, k, data))
			}
			return rcausal.Standardise(m)
		}
		x, err := cols(i)
		if err != nil {
			return 0, err
		}
		y, err := cols(j)
		if err != nil {
			return 0, err
		}
		z, err := cols(s...)
		if err != nil {
			return 0, err
		}
		h := fnv.New64a()
		fmt.Fprint(h, i, j, s)
		var r rktest.CIResult
		if method == "kci" {
			r, err = rktest.KCITest(ctx, x, y, z, nil, nil, nil, 0, seed^h.Sum64())
		} else {
			r, err = rktest.RCITTest(ctx, x, y, z, features, 0, rktest.LPB4, seed^h.Sum64())
		}
		if err != nil {
			return 0, err
		}
		return r.PValue, nil
	}
}
