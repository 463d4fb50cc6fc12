package ktest

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/kernel"

	rktest "github.com/kml-lang/kml/runtime/ktest"
)

// The "opt" kernel choice of mmd_test and hsic_test: the sample split,
// the lengthscale of highest estimated power chosen on one part and the
// test run on the other (runtime/ktest's MMDOptTest and HSICOptTest).

func isOpt(a *eval.Args, name string) bool {
	v, ok := a.Value(name).(eval.Str)
	return ok && v == "opt"
}

// checkTrain refuses train: where no kernel is "opt" and reads nothing
// else; optOptions reads it.
func checkTrain(a *eval.Args, opt bool) error {
	if a.Given("train") && !opt {
		return a.Errorf("train", `train: is the training fraction of the "opt" kernel; no kernel here is "opt"`)
	}
	return nil
}

func optOptions(a *eval.Args) (rktest.OptOptions, error) {
	f, err := a.Num("train")
	if err != nil {
		return rktest.OptOptions{}, err
	}
	if !(f > 0 && f < 1) {
		return rktest.OptOptions{}, a.Errorf("train", "train must be a fraction between 0 and 1, got %g", f)
	}
	return rktest.OptOptions{Train: f}, nil
}

// OptRecord is an "opt" choice's split and criterion: train (the
// fraction), train_rows and test_rows (MMD: [rows of x, rows of y]; HSIC:
// pairs), lambda, and on the training part at the chosen lengthscale the
// criterion, the statistic and its estimated sd under the alternative.
func OptRecord(c rktest.Chosen, paired bool) *eval.Record {
	o := c.Opt
	rows := func(r [2]int) eval.Value {
		if paired {
			return eval.Num(r[0])
		}
		return &eval.Vec{Data: []float64{float64(r[0]), float64(r[1])}}
	}
	return eval.NewRecord().Set("train", eval.Num(o.Train)).
		Set("train_rows", rows(o.TrainRows)).Set("test_rows", rows(o.TestRows)).
		Set("lambda", eval.Num(o.Lambda)).Set("criterion", eval.Num(o.Criterion.J)).
		Set("statistic", eval.Num(o.Criterion.Stat)).Set("sd", eval.Num(math.Sqrt(math.Max(o.Criterion.Var, 0))))
}

func optFailed(a *eval.Args, err error) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	return a.Fail("%v", err)
}

func mmdOptTest(a *eval.Args, x, y *mat.Dense, method rktest.Method, s rktest.Settings) (eval.Value, error) {
	o, err := optOptions(a)
	if err != nil {
		return nil, err
	}
	if err := fitInBudget(a, &s, x.RawMatrix().Rows+y.RawMatrix().Rows, 1, 1, false); err != nil {
		return nil, err
	}
	// The criterion holds three distance and three kernel matrices of the
	// paired training rows.
	tr := int(math.Round(o.Train * float64(min(x.RawMatrix().Rows, y.RawMatrix().Rows))))
	if err := a.CheckDense(tr, 6*tr, `"opt"'s criterion matrices`, "use a smaller train: fraction or a subsample"); err != nil {
		return nil, err
	}
	r, c, err := rktest.MMDOptTest(a.Context(), x, y, method, o, s)
	if err != nil {
		return nil, optFailed(a, err)
	}
	rec := ResultRecord(r)
	rec.Set("ell", EllValue(c.Ell)).Set("choice", eval.Str(c.Choice)).Set("opt", OptRecord(c, false))
	return rec, nil
}

func hsicOptTest(a *eval.Args, x, y *mat.Dense, method rktest.Method, s rktest.Settings) (eval.Value, error) {
	o, err := optOptions(a)
	if err != nil {
		return nil, err
	}
	var ks [2]rktest.Chosen
	for i, name := range []string{"kx", "ky"} {
		if isOpt(a, name) {
			continue
		}
		k, ok := a.Value(name).(*kernel.KernelVal)
		if !ok {
			return nil, a.Errorf(name, `with "opt" on one side, %s must be a kernel or "opt", got %s`, name, eval.Describe(a.Value(name)))
		}
		ks[i] = rktest.Given(k.K)
	}
	if err := fitInBudget(a, &s, x.RawMatrix().Rows, 2, 2, false); err != nil {
		return nil, err
	}
	// Two distance (or Gram) matrices and two kernel buffers of the
	// training pairs.
	tr := int(math.Round(o.Train * float64(x.RawMatrix().Rows)))
	if err := a.CheckDense(tr, 4*tr, `"opt"'s criterion matrices`, "use a smaller train: fraction or a subsample"); err != nil {
		return nil, err
	}
	r, cx, cy, err := rktest.HSICOptTest(a.Context(), ks[0].Kernel, ks[1].Kernel, x, y, method, o, s)
	if err != nil {
		return nil, optFailed(a, err)
	}
	if math.IsNaN(r.PValue) {
		return nil, a.Fail("the p-value is not defined for these data (constant kernel matrices?)")
	}
	rec := ResultRecord(r)
	rec.Set("ell", eval.NewRecord().Set("x", EllValue(cx.Ell)).Set("y", EllValue(cy.Ell)))
	rec.Set("choice", eval.NewRecord().Set("x", eval.Str(cx.Choice)).Set("y", eval.Str(cy.Choice)))
	or := eval.NewRecord()
	for _, v := range []struct {
		name string
		c    rktest.Chosen
	}{{"x", cx}, {"y", cy}} {
		if v.c.Opt != nil {
			or.Set(v.name, OptRecord(v.c, true))
		}
	}
	rec.Set("opt", or)
	return rec, nil
}
