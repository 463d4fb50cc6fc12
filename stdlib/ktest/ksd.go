package ktest

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

func registerKSD(reg *eval.Registry) {
	reg.Register(`ksd_test(x, target, kernel = "imq", ell = "median", beta = -0.5, method = "wild_bootstrap", bootstraps = 1000, seed?, bandwidths = 10, alpha = 0.05, at?, observed?, draws = 200)`,
		`The kernel Stein discrepancy goodness-of-fit test of H0: the rows of x are i.i.d. draws from target (Liu, Lee and Jordan 2016; Chwialkowski, Strathmann and Gretton 2016). target: a univariate distribution on the real line (x a vector or one column), multi_normal (x with K columns), a kst or kde density, a model with at: {parameter: value, ...} (the distribution the model gives its observed variable at those values, derived quantities included; observed: "y" names the variable when the model observes several), or a posterior from sample (its posterior predictive (1/S) Σ_s p(x | θ_s) over draws evenly spaced draws, whose score is Σ_s w_s(x) ∇ log p(x | θ_s) with w_s(x) ∝ p(x | θ_s)); a model's distribution must be the same for every row (numbers as parameters, or multi_normal). Only the target's score ∇ log p is used, exactly (no normalising constant). The statistic is the U-statistic of the Stein kernel of the base kernel: "imq" (1 + ‖x − y‖²/ℓ²)^beta, beta in (−1, 0), the default because its discrepancy detects non-convergence (Gorham and Mackey 2017), or "rbf". ell: a number, "median" (the median heuristic of x) or "aggregate" (KSDAgg, Schrab et al. 2022: bandwidths lengthscales log-spaced as mmd_test's aggregate, on the same bootstrap draws, combined by the minimum p-value at level alpha). method: "wild_bootstrap" (Rademacher multipliers, bootstraps draws, seeded; asymptotically exact). Returns {statistic, pvalue, method, bootstraps, kernel, ell, beta, choice, n, target}, observed for a model or posterior, draws and posterior_draws for a posterior, and, aggregated, bandwidths, statistics, pvalues, rejected, threshold and alpha.`,
		ksdTest)
}

func ksdTest(a *eval.Args) (eval.Value, error) {
	x, err := a.Matrix("x")
	if err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	if n < 2 {
		return nil, a.Errorf("x", "the test needs at least 2 observations, got %d", n)
	}
	var method, base string
	if err := a.Unpack("method", &method, "kernel", &base); err != nil {
		return nil, err
	}
	if method != "wild_bootstrap" {
		return nil, a.Errorf("method", `method must be "wild_bootstrap", got %q`, method)
	}
	s := rktest.KSDSettings{Base: rktest.SteinBase(base)}
	if s.Base != rktest.IMQ && s.Base != rktest.RBF {
		return nil, a.Errorf("kernel", `kernel must be "imq" or "rbf", got %q`, base)
	}
	if s.Beta, err = a.Num("beta"); err != nil {
		return nil, err
	}
	if s.Base == rktest.IMQ && !(s.Beta > -1 && s.Beta < 0) {
		return nil, a.Errorf("beta", "beta must be between -1 and 0, got %g", s.Beta)
	}
	if s.Bootstraps, err = a.IntIn("bootstraps", 1, eval.MaxLength); err != nil {
		return nil, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	if s.Alpha, err = a.Num("alpha"); err != nil {
		return nil, err
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return nil, a.Errorf("alpha", "alpha must be between 0 and 1, got %g", s.Alpha)
	}
	choice, err := ksdEll(a, x, &s)
	if err != nil {
		return nil, err
	}
	if err := a.CheckDense(n, n*max(1, len(s.Ells)), "the Stein kernel matrices", "use a smaller sample (or fewer bandwidths)"); err != nil {
		return nil, err
	}
	mt, isModel, err := modelTargetScores(a, a.Value("target"), x)
	if err != nil {
		return nil, err
	}
	score := mt.score
	if !isModel {
		if score, err = TargetScores(a.Value("target"), x); err != nil {
			return nil, a.Errorf("target", "%v", err)
		}
		mt.label = fmt.Sprint(a.Value("target"))
	}
	r, err := rktest.KSDTest(a.Context(), x, score, s)
	if err != nil {
		if e := a.Th.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Fail("%v", err)
	}
	return ksdRecord(r, choice, n, mt), nil
}

// ksdEll reads ell: a number, "median" or "aggregate", into s, and returns
// the choice.
func ksdEll(a *eval.Args, x *mat.Dense, s *rktest.KSDSettings) (string, error) {
	switch v := a.Value("ell").(type) {
	case eval.Str:
		switch v {
		case "median":
			m, err := kernels.MedianHeuristic(x, s.Seed)
			if err != nil {
				return "", a.Errorf("ell", "%v", err)
			}
			if !(m > 0) {
				return "", a.Errorf("ell", "the median distance between the rows of x is 0: give ell")
			}
			s.Ell = m
			return "median", nil
		case "aggregate":
			count, err := a.IntIn("bandwidths", 1, 100)
			if err != nil {
				return "", err
			}
			ells, err := rktest.Collection(x, count, s.Seed)
			if err != nil {
				return "", a.Errorf("ell", "%v", err)
			}
			s.Ells = ells
			return "aggregate", nil
		}
	default:
		if f, ok := eval.ToFloat(v); ok {
			if !(f > 0) {
				return "", a.Errorf("ell", "ell must be positive, got %g", f)
			}
			s.Ell = f
			return "given", nil
		}
	}
	return "", a.Errorf("ell", `ell must be a positive number, "median" or "aggregate", got %s`, eval.Describe(a.Value("ell")))
}

func ksdRecord(r rktest.KSDResult, choice string, n int, mt modelTarget) *eval.Record {
	rec := eval.NewRecord()
	rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).
		Set("method", eval.Str("wild_bootstrap")).Set("bootstraps", eval.Num(r.Bootstraps)).
		Set("kernel", eval.Str(r.Base))
	if r.Ells != nil {
		rec.Set("ell", &eval.Vec{Data: r.Ells})
	} else {
		rec.Set("ell", eval.Num(r.Ell))
	}
	if r.Base == rktest.IMQ {
		rec.Set("beta", eval.Num(r.Beta))
	}
	rec.Set("choice", eval.Str(choice)).Set("n", eval.Num(n)).Set("target", eval.Str(mt.label))
	if mt.observed != "" {
		rec.Set("observed", eval.Str(mt.observed))
	}
	if mt.draws > 0 {
		rec.Set("draws", eval.Num(mt.draws)).Set("posterior_draws", eval.Num(mt.total))
	}
	if r.Ells != nil {
		rej := make([]float64, len(r.Rejected))
		for i, b := range r.Rejected {
			if b {
				rej[i] = 1
			}
		}
		rec.Set("bandwidths", &eval.Vec{Data: r.Ells}).Set("statistics", &eval.Vec{Data: r.Statistics}).
			Set("pvalues", &eval.Vec{Data: r.PValues}).Set("rejected", &eval.Vec{Data: rej}).
			Set("threshold", eval.Num(r.Threshold)).Set("alpha", eval.Num(r.Alpha))
	}
	return rec
}
