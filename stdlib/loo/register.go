package loo

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	rloo "github.com/kml-lang/kml/runtime/loo"
)

// Register adds the package's builtins to r.
func Register(r *eval.Registry) {
	r.Register(`loo(post, r_eff = 1, reloo = false, seed?, split?, chains = 4, warmup = 1000, draws = 1000, adapt_delta = 0.8, max_depth = 10, metric = "diag")`,
		`Leave-one-out cross-validation of a posterior by Pareto-smoothed importance sampling (PSIS-LOO; Vehtari, Gelman and Gabry 2017; Vehtari et al. 2024), with the log likelihood of each observed point taken from the model's observation statements (an observation of a vector is one point per element, a matrix observed by multi_normal one point per row, any other multivariate observation one point). Returns elpd_loo, p_loo and looic with their standard errors (se_elpd_loo, ...), the pointwise elpd_loo_i, p_loo_i, looic_i and pareto_k, and k_threshold = min(1 − 1/log10 S, 0.7): points whose k̂ is above it are reported in a warning. r_eff: the draws' relative efficiency, which sets the smoothed tail's length ⌈min(S/5, 3√(S/r_eff))⌉. A model with target += or a bke observation is refused. reloo: true refits the points whose k̂ is above the threshold exactly, as R's reloo: for each, the model (one that takes data, m(x: x, y: y)) is refitted with NUTS on its data without the point (the rows split as kfold splits them, split: to name the arguments; chains, warmup, draws, adapt_delta, max_depth, metric as sample; refit j's seed drawn from seed), its elpd_loo_i becomes log(1/S Σ_s p(y_i | θ_s)) over the refit's draws, p_loo_i = lpd_i − elpd_loo_i, and its k̂ is set to 0; refitted (the points, 1-based), refit_k (their k̂ before) and refit_seeds report what was done. For a GP model, post may also be what optimize returned (objective: "ml"): each point's log p(y_i | y_−i, θ̂) at the fitted hyperparameters (exact for normal observations, the approximation's cavities otherwise), conditional on them — no draws, no PSIS, no k̂ or p_loo; the result has conditional: true and the values it is conditional on.`,
		looBuiltin)
	r.Register(`waic(post)`,
		`The widely applicable information criterion of a posterior (Watanabe 2010; as computed by Vehtari, Gelman and Gabry 2017): elpd_waic = lpd − p_waic, p_waic the pointwise variance of the log likelihood over the draws, waic = −2 elpd_waic, with standard errors and pointwise values; warns when some p_waic_i exceed 0.4 (use loo then).`,
		waicBuiltin)
	r.Register(`loo_compare(models..., **)`,
		`Compares models by their PSIS-LOO estimates (Vehtari, Gelman and Gabry 2017, §5.2): loo_compare(rbf: loo(p1), matern: loo(p2)) or loo_compare(loo(p1), loo(p2)) (posteriors are accepted too and their loo computed). Rows best first: elpd_diff, the difference of each model's elpd_loo from the best's (0 for the best), and se_diff, √N times the sd of the pointwise differences. Named by the argument names when given, else by the models' names.`,
		compareBuiltin)
	r.Register(kfoldSig, kfoldHelp, kfoldBuiltin)
	r.Register(`loo_pit(post, seed?, r_eff = 1, alpha = 0.05, null_sims = 2000)`,
		`The leave-one-out probability integral transform (LOO-PIT; Gabry et al. 2019, "Visualization in Bayesian workflow"): for each observed point, p_i = Σ_s w̃_is 1[ỹ_is ≤ y_i], one replicate ỹ_s of the data drawn at each posterior draw (as ppc, with seed) weighted by the point's Pareto-smoothed leave-one-out weights (as loo's, with r_eff); for a variable whose data and replicates are all whole numbers the PIT is randomised, Σ_s w̃_is 1[ỹ_is < y_i] + U_i Σ_s w̃_is 1[ỹ_is = y_i]. A calibrated model gives uniform values: they are tested by the ECDF test sbc uses (Säilynoja, Bürkner and Vehtari 2022) on L = 100 points with a simultaneous 1 − alpha band from null_sims uniform samples. Returns a record: pit, pareto_k (warned above k_threshold), variables, discrete, p_value, L, test and the settings; plot draws the ECDF difference of the PIT values with the band. Multivariate observations (one point for several values) are refused.`,
		looPITBuiltin)
}

func looPITBuiltin(a *eval.Args) (eval.Value, error) {
	var p infer.PosteriorArg
	var s infer.LOOPITSettings
	if err := a.Unpack("post", &p, "r_eff", &s.Reff, "alpha", &s.Alpha); err != nil {
		return nil, err
	}
	if !(s.Reff > 0) {
		return nil, a.Errorf("r_eff", "r_eff must be positive, got %v", s.Reff)
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return nil, a.Errorf("alpha", "alpha must be between 0 and 1, got %v", s.Alpha)
	}
	var err error
	if s.NullSims, err = a.IntIn("null_sims", 100, 1_000_000); err != nil {
		return nil, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	r, err := infer.ComputeLOOPIT(a.Context(), a.Th, p.Posterior, s)
	if err != nil {
		if e := a.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		var ae *ast.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, a.Errorf("post", "%v", err)
	}
	for _, w := range r.Warnings() {
		a.Th.Interp().Warn(a.Pos, w)
	}
	return r.Record(), nil
}

func looBuiltin(a *eval.Args) (eval.Value, error) {
	if rec, ok := a.Value("post").(*eval.Record); ok {
		return looFit(a, rec)
	}
	var p infer.PosteriorArg
	var reff float64
	var refit bool
	if err := a.Unpack("post", &p, "r_eff", &reff, "reloo", &refit); err != nil {
		return nil, err
	}
	if !(reff > 0) {
		return nil, a.Errorf("r_eff", "r_eff must be positive, got %v", reff)
	}
	errf := func(f string, args ...any) error { return a.Errorf("post", f, args...) }
	ll, err := pointwise(a, p.Posterior, errf)
	if err != nil {
		return nil, err
	}
	l, err := looOf(a, p.Posterior, ll, reff, errf)
	if err != nil {
		return nil, err
	}
	if refit {
		if err := reloo(a, p.Posterior, l, ll); err != nil {
			return nil, err
		}
	}
	for _, w := range l.Warnings() {
		a.Th.Interp().Warn(a.Pos, w)
	}
	return l, nil
}

// computeLOO is loo of post; errf makes an error at the argument.
func computeLOO(a *eval.Args, post *infer.Posterior, reff float64, errf func(string, ...any) error) (*LOOValue, error) {
	ll, err := pointwise(a, post, errf)
	if err != nil {
		return nil, err
	}
	return looOf(a, post, ll, reff, errf)
}

// looOf is loo of post from its pointwise log likelihood ll.
func looOf(a *eval.Args, post *infer.Posterior, ll [][]float64, reff float64, errf func(string, ...any) error) (*LOOValue, error) {
	task := a.Progress("observations", len(ll))
	defer task.Done()
	l, err := rloo.Compute(a.Context(), ll, reff, runtime.GOMAXPROCS(0), func() { task.Add(1) })
	if err != nil {
		if e := a.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, errf("%v", err)
	}
	return &LOOValue{LOO: l, Model: post.Model.Name}, nil
}

// pointwise is the posterior's pointwise log likelihood; a refusal is
// made by errf unless it names its statement.
func pointwise(a *eval.Args, post *infer.Posterior, errf func(string, ...any) error) ([][]float64, error) {
	ll, err := infer.PointwiseLogLik(a.Context(), a.Th, post)
	if err == nil {
		return ll, nil
	}
	if e := a.Context().Err(); e != nil {
		return nil, a.Interrupted(e)
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		return nil, err
	}
	return nil, errf("%v", err)
}

func waicBuiltin(a *eval.Args) (eval.Value, error) {
	var p infer.PosteriorArg
	if err := a.Unpack("post", &p); err != nil {
		return nil, err
	}
	ll, err := pointwise(a, p.Posterior, func(f string, args ...any) error { return a.Errorf("post", f, args...) })
	if err != nil {
		return nil, err
	}
	w, err := rloo.ComputeWAIC(ll)
	if err != nil {
		return nil, a.Errorf("post", "%v", err)
	}
	for _, msg := range w.Warnings() {
		a.Th.Interp().Warn(a.Pos, msg)
	}
	return &WAICValue{WAIC: w, Model: p.Model.Name}, nil
}

func compareBuiltin(a *eval.Args) (eval.Value, error) {
	var names []string
	var loos []*rloo.LOO
	seen := map[string]int{}
	add := func(v eval.Value, name string, errf func(string, ...any) error) error {
		var l *LOOValue
		switch v := v.(type) {
		case *LOOValue:
			l = v
		case *KFoldValue:
			l = &LOOValue{LOO: v.LOO(), Model: v.Model}
		case *FitLOOValue:
			l = &LOOValue{LOO: v.LOO(), Model: v.Model}
		case *infer.Posterior:
			var err error
			if l, err = computeLOO(a, v, 1, errf); err != nil {
				return err
			}
		default:
			return errf("each model must be a loo or kfold result or a posterior, got %s", eval.Describe(v))
		}
		if name == "" {
			name = l.Model
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s (%d)", name, seen[name])
		}
		names, loos = append(names, name), append(loos, l.LOO)
		return nil
	}
	for i, v := range a.Rest {
		if err := add(v, "", func(f string, args ...any) error { return a.RestErrorf(i, f, args...) }); err != nil {
			return nil, err
		}
	}
	for _, nv := range a.Extra {
		errf := func(f string, args ...any) error {
			return &ast.Error{Pos: nv.Pos, Msg: "loo_compare: " + fmt.Sprintf(f, args...)}
		}
		if err := add(nv.Value, nv.Name, errf); err != nil {
			return nil, err
		}
	}
	if len(loos) < 2 {
		return nil, a.Fail("loo_compare needs at least two models, got %d", len(loos))
	}
	rows, err := rloo.Compare(names, loos)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return &CompareValue{Rows: rows}, nil
}
