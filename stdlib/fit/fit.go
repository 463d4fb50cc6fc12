package fit

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/inference"
)

func registerFit(reg *eval.Registry) {
	reg.Register(`sample(m, chains = 4, warmup = 1000, draws = 1000, seed?, adapt_delta = 0.8, max_depth = 10, metric = "diag", init = "pathfinder", fix?, approx = "vb")`,
		`Draws from the posterior of model m with NUTS (Stan's algorithm and warm-up). Chains run in parallel; the same seed gives the same draws on any number of cores. metric: "diag" or "dense". init: "pathfinder" (default: starting points resampled from quasi-Newton Gaussian fits, so chains start where the mass is), "uniform" (Stan's: uniform in (-2, 2) on the unconstrained scale) or a record of starting values. fix: a record of parameters held at given values. approx: for a model with a latent GP and non-Gaussian observations, the approximation of the marginal likelihood the hyperparameters are sampled under: "vb" (the variational lower bound), "laplace" (Laplace's approximation) or "ep" (expectation propagation). Returns a posterior: summary(post), post.NAME (all draws), save(post, to: "draws.csv").`,
		sampleBuiltin)
	reg.Register(`optimize(m, fix?, starts = 1, seed?, objective = "map", init?, p = 1, lambda = 1, approx = "vb", method = "lbfgs", loss = "likelihood", C = 1, epsilon = 0.1, batch = 1024, steps = 2000, gamma = 0.1, lr = 0.01, maxls = 30, resume?)`,
		`Maximises model m's log density by L-BFGS on the unconstrained scale. objective: "map" (priors plus likelihood, default) or "ml" (ML-II: the likelihood alone; also "mlm"); for a model with a latent GP also "vb" (the variational bound), "mkl" (λ‖θ‖ₚᵖ in place of log|K|, with p and lambda) and "rr" (its ridge-regression form), and "map" is joint MAP over the hyperparameters and the latent function, "ml_prior" the marginal likelihood plus the hyperparameters' log priors (type-II MAP); approx: the approximation of "ml" for non-Gaussian observations, "vb" (the super-Gaussian variational lower bound), "laplace" (Laplace's approximation at the posterior mode; Student-t and bernoulli_logit observations) or "ep" (expectation propagation). fix: a record of parameters held at given values; starts: seeded multi-start, keeping the best. method: "lbfgs", or for a latent GP's "map" and "mkl" objectives "double_loop", the paper's Algorithm 1 (joint Newton steps in the kernel weights θ and the latent function, a log barrier for θ ≥ 0), when every free parameter is a weight of the kernel θ₁k₁ + ... + θ_M k_M (start θ = 1, or init) and the observations are normal or bernoulli_logit. maxls: the most evaluations of the objective one L-BFGS line search may make (default 30; SciPy's L-BFGS-B has 20); a line search also ends when no step along its direction can change the objective by more than 1e-13 of its value (its rounding error), and the start then counts as converged (status RoundingLimit). Returns a record with each parameter (constrained scale), logp (the maximised objective), converged, iterations, grad_norm, evaluations (of the objective, summed over the starts) and, for method "lbfgs", maxls; for a latent GP also objective, approx, method and model, for predict. loss: for "mkl" and "rr", "hinge" or "eps_insensitive" replaces the observation's −2 log P by C Σ ℓ(y_i, f_i), the SVM's hinge max(0, 1 − y_i f_i) (labels) or the paper's ε-insensitive max(0, |y_i − f_i|/epsilon − 1), with p ≥ 1 (p-norm MKL); the record then holds loss, C and epsilon. method: "svgp" (with objective: "ml") fits a latent GP by a stochastic variational GP (Hensman, Matthews and Ghahramani 2015) through the inducing points gp() gives (inducing:, select:; 512 k-means centres by default): natural-gradient steps of size gamma for the whitened q(u) and Adam steps of size lr for the logarithms of the kernel's and the likelihood's parameters (each a free parameter of its own), on minibatches of batch rows (seeded by seed), for steps steps; normal, student_t, bernoulli_logit, poisson_log and neg_binomial_2_log observations (the expectations by 20-node Gauss–Hermite quadrature, in closed form for normal and poisson_log; phi learnt like the others), and gp(X, K, classes: C) through categorical_logit (one q per class, E[log softmax] by 1000 fixed quasi-Monte Carlo base normals seeded by seed; keep gamma ≤ 0.5; the record holds draws in place of quad). Its record holds logp = elbo (the bound over all the data at the end), inducing, batch, steps, total_steps, epochs, gamma, lr and quad, and predict uses the fitted q(u). resume: such a record of the same model continues its fit where it stopped (the same batch and seed; steps, gamma and lr may change): steps a then b give what a + b steps give, and the record resumed from is left as it was.`,
		optimizeBuiltin)
	reg.Register(`profile(m, objective = "map", p = 1, lambda = 1, approx = "vb", loss = "likelihood", C = 1, epsilon = 0.1, **)`,
		`The log density of model m along a grid: profile(m, ell: logspace(-2, 2, 100), tau2: 1). One parameter takes a vector (the grid); others take values; parameters left out are maximised at each grid point (a profile likelihood). objective: "map" (log prior + log likelihood) or "ml" (log likelihood alone). Returns a record {NAME: grid, logp: values} that plot draws.`,
		profileBuiltin)
	reg.Register(`summary(post)`,
		`The posterior summary: mean, MCSE, sd, 5%, 50% and 95% quantiles, bulk and tail ESS and rank-normalised R-hat per parameter (Vehtari et al. 2021), with warnings for R-hat > 1.01, low ESS, divergences, low E-BFMI and tree-depth saturation. Prints as a table; --json writes the object of the language reference.`,
		func(a *eval.Args) (eval.Value, error) {
			var p infer.PosteriorArg
			if err := a.Unpack("post", &p); err != nil {
				return nil, err
			}
			return &infer.SummaryVal{S: p.Summary, Approx: p.Approx}, nil
		})
	reg.Register(`draws(post, name)`,
		`Every draw of parameter name (all chains): a vector, or a draws × K matrix for a vector parameter. Same as post.NAME. The sampler's columns lp__, accept_stat__, stepsize__, treedepth__, n_leapfrog__, divergent__ and energy__ are vectors too.`,
		func(a *eval.Args) (eval.Value, error) {
			var p infer.PosteriorArg
			var name string
			if err := a.Unpack("post", &p, "name", &name); err != nil {
				return nil, err
			}
			v, ok := p.Attr(name)
			if !ok {
				return nil, a.Errorf("name", "the posterior has no parameter %q; it has %s and the sampler's columns %s", name, model.NameList(p.AttrNames()), strings.Join(infer.SamplerColumns, ", "))
			}
			return v, nil
		})
}

// fixedArg reads the optional `fix:` record.
func fixedArg(a *eval.Args) (map[string]eval.Value, error) {
	if a.Value("fix") == nil {
		return nil, nil
	}
	return infer.RecordValues(a, "fix")
}

// maxDenseDim is the most parameters a dense metric takes: beyond it the
// metric's matrix would exhaust memory, and the value is surely a slip
// (the other sampler limits are infer.MaxChains and infer.MaxTreeDepth).
const maxDenseDim = 2000

func sampleBuiltin(a *eval.Args) (eval.Value, error) {
	var marg infer.ModelArg
	err := a.Unpack("m", &marg)
	if err != nil {
		return nil, err
	}
	m := marg.Model
	s, err := infer.SamplerArgs(a)
	if err != nil {
		return nil, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	fixed, err := fixedArg(a)
	if err != nil {
		return nil, err
	}
	terms := model.Terms{Prior: true, Likelihood: true, Jacobian: true}
	if terms.Latent.Approx, err = model.LatentApprox(a); err != nil {
		return nil, err
	}
	th := a.Th
	c, err := model.Compile(th, a.Pos, m, fixed, terms)
	if err != nil {
		return nil, err
	}
	if c.Dim() == 0 {
		return nil, a.Fail("model %s has no free parameters to sample", m.Name)
	}
	if s.Metric == hmc.Dense && c.Dim() > maxDenseDim {
		return nil, a.Errorf("metric", "a dense metric for %d parameters would adapt a %d×%d matrix per chain; use metric: \"diag\" (the limit is %d parameters)", c.Dim(), c.Dim(), c.Dim(), maxDenseDim)
	}
	switch v := a.Value("init").(type) {
	case eval.Str:
		switch v {
		case "pathfinder":
			s.Init = hmc.InitPathfinder
		case "uniform":
			s.Init = hmc.InitUniform
		default:
			return nil, a.Errorf("init", "init must be \"pathfinder\", \"uniform\" or a record of values, got %q", string(v))
		}
	case *eval.Record:
		vals, _ := infer.RecordValues(a, "init")
		q, err := c.Unconstrain(vals)
		if err != nil {
			return nil, a.Errorf("init", "%v", err)
		}
		s.InitPoint = q
	default:
		return nil, a.Errorf("init", "init must be \"pathfinder\", \"uniform\" or a record of values, got %s", eval.Describe(v))
	}
	if s.NoWarmup {
		// As Stan does: without warm-up nothing is adapted.
		th.Interp().Warn(a.Pos, "warmup: 0: the step size and the metric are not adapted (step size 1, identity metric) and the chains start at their initial points; the draws may be far from the posterior")
	}
	if err := infer.CheckDraws(a, c, s.Chains, s.Draws); err != nil {
		return nil, err
	}
	post, err := infer.Sample(a.Context(), th, c, s)
	if err != nil {
		return nil, fitError(a, err)
	}
	return post, nil
}

// fitError is a fitting builtin's error: "interrupted" when the run was
// cancelled.
func fitError(a *eval.Args, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return a.Interrupted(err)
	}
	var ge *model.GeneratedError
	if errors.As(err, &ge) {
		// Shown where it happened, in the generated block.
		e := *ge.Err
		e.Notes = append(slices.Clip(e.Notes), fmt.Sprintf("in the model's generated block, run for each draw by the call at %s", a.Pos))
		return &e
	}
	return a.Fail("%v", err)
}

func optimizeBuiltin(a *eval.Args) (eval.Value, error) {
	var marg infer.ModelArg
	err := a.Unpack("m", &marg)
	if err != nil {
		return nil, err
	}
	m := marg.Model
	terms, err := model.ObjectiveTerms(a, m)
	if err != nil {
		return nil, err
	}
	fixed, err := fixedArg(a)
	if err != nil {
		return nil, err
	}
	starts, err := a.IntIn("starts", 1, 10_000)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	var method string
	if err := a.Unpack("method", &method); err != nil {
		return nil, err
	}
	terms.Latent.ResolveOnly = method == "svgp"
	if a.Value("resume") != nil && method != "svgp" {
		return nil, a.Errorf("resume", `resume: continues a fit by method "svgp"; the other methods start from init:`)
	}
	th := a.Th
	c, err := model.Compile(th, a.Pos, m, fixed, terms)
	if err != nil {
		return nil, err
	}
	maxls, err := a.IntIn("maxls", 1, 10_000)
	if err != nil {
		return nil, err
	}
	s := inference.Settings{Starts: starts, Seed: seed, LineSearchMax: maxls}
	if a.Value("init") != nil {
		vals, err := infer.RecordValues(a, "init")
		if err != nil {
			return nil, err
		}
		if s.Init, err = c.Unconstrain(vals); err != nil {
			return nil, a.Errorf("init", "%v", err)
		}
	}
	var opt *infer.Optimum
	var svgpRun *model.SVGPRun
	switch method {
	case "lbfgs":
		opt, err = infer.Optimize(a.Context(), th, c, s)
	case "double_loop":
		if obj := terms.Latent.Name; !model.HasLatent(m) || (obj != model.ObjMAP && obj != model.ObjMKL) {
			return nil, a.Errorf("method", `method "double_loop" (the paper's Algorithm 1) is for the "map" and "mkl" objectives of a model with a latent GP`)
		}
		if starts != 1 {
			return nil, a.Errorf("starts", `method "double_loop" runs from one start (θ = 1, or init:)`)
		}
		if terms.Latent.Loss != model.LossLikelihood {
			return nil, a.Errorf("method", `method "double_loop" needs a likelihood's smooth loss, not loss %q`, terms.Latent.Loss)
		}
		if opt, err = infer.OptimizeDoubleLoop(a.Context(), th, a.Pos, c, s.Init); err != nil && a.Context().Err() == nil {
			return nil, a.Errorf("method", "%v", err)
		}
	case "svgp":
		if !model.HasLatent(m) {
			return nil, a.Errorf("method", `method "svgp" (a stochastic variational GP) is for a model with a latent GP`)
		}
		if obj, _ := a.Str("objective"); obj != "ml" && obj != "mlm" {
			return nil, a.Errorf("objective", `method "svgp" maximises the ELBO over the kernel's and the likelihood's parameters (ML-II): write objective: "ml", not %q`, obj)
		}
		if starts != 1 {
			return nil, a.Errorf("starts", `method "svgp" runs from one start (init:, or 1 for every positive parameter)`)
		}
		set, err := svgpSettings(a, seed)
		if err != nil {
			return nil, err
		}
		if set.Resume, err = resumeArg(a, m); err != nil {
			return nil, err
		}
		if opt, svgpRun, err = infer.OptimizeSVGP(a.Context(), th, c, s.Init, set); err != nil && a.Context().Err() == nil {
			if errors.Is(err, rgp.ErrResume) {
				return nil, a.Errorf("resume", "%v", err)
			}
			return nil, a.Errorf("method", "%v", err)
		}
	default:
		return nil, a.Errorf("method", `method must be "lbfgs", "double_loop" or "svgp", got %q`, method)
	}
	if err != nil {
		return nil, fitError(a, err)
	}
	for _, w := range opt.Warnings {
		th.Interp().Warn(a.Pos, w)
	}
	if model.HasLatent(m) {
		obj, _ := a.Str("objective")
		opt.Values.Set("objective", eval.Str(obj)).Set("approx", eval.Str(terms.Latent.Approx.String())).Set("method", eval.Str(method))
		if l := terms.Latent; l.Loss != model.LossLikelihood {
			opt.Values.Set("loss", eval.Str(l.Loss.String())).Set("C", eval.Num(l.C)).Set("epsilon", eval.Num(l.Epsilon))
		}
		opt.Values.Set("model", m)
		lat := terms.Latent
		lat.ResolveOnly = false
		fit := model.LatentFit{Model: m, Objective: lat}
		if svgpRun != nil {
			opt.Values.Set("approx", eval.Str("svgp"))
			fit.Fitted = svgpRun.Fitted
		}
		model.KeepLatentFit(opt.Values, fit)
	}
	return opt.Values, nil
}

// resumeArg reads resume:, a record optimize returned for model m by
// method "svgp": its fitted approximation, which the new fit continues
// (nil without resume:).
func resumeArg(a *eval.Args, m *eval.Model) (any, error) {
	v := a.Value("resume")
	if v == nil {
		return nil, nil
	}
	rec, ok := v.(*eval.Record)
	var lf model.LatentFit
	if ok {
		lf, ok = model.LatentFitOf(rec)
	}
	if !ok || lf.Fitted == nil {
		return nil, a.Errorf("resume", `resume: takes the result of optimize(..., method: "svgp"), got %s`, eval.Describe(v))
	}
	if lf.Model != m {
		return nil, a.Errorf("resume", "resume: takes a fit of model %s, got one of model %s", m.Name, lf.Model.Name)
	}
	return lf.Fitted, nil
}

// svgpSettings reads method "svgp"'s settings: batch and steps whole
// numbers of at least 1, gamma in (0, 1], lr ≥ 0.
func svgpSettings(a *eval.Args, seed uint64) (model.SVGPSettings, error) {
	set := model.SVGPSettings{Seed: seed}
	var err error
	if set.Batch, err = a.PositiveInt("batch"); err != nil {
		return set, err
	}
	if set.Steps, err = a.PositiveInt("steps"); err != nil {
		return set, err
	}
	if set.Gamma, err = a.Num("gamma"); err != nil {
		return set, err
	}
	if !(set.Gamma > 0 && set.Gamma <= 1) {
		return set, a.Errorf("gamma", "gamma, the natural-gradient step size, must be in (0, 1], got %s", eval.FormatNumber(set.Gamma))
	}
	if set.LR, err = a.Num("lr"); err != nil {
		return set, err
	}
	if !(set.LR >= 0) {
		return set, a.Errorf("lr", "lr, Adam's step size, must be at least 0 (0 holds the parameters), got %s", eval.FormatNumber(set.LR))
	}
	return set, nil
}

func profileBuiltin(a *eval.Args) (eval.Value, error) {
	var marg infer.ModelArg
	err := a.Unpack("m", &marg)
	if err != nil {
		return nil, err
	}
	m := marg.Model
	terms, err := model.ObjectiveTerms(a, m)
	if err != nil {
		return nil, err
	}
	known := map[string]eval.ModelParam{}
	for _, p := range m.Params {
		known[p.Name] = p
	}
	var gridName string
	var grid []float64
	fixed := map[string]eval.Value{}
	for _, na := range a.Extra {
		p, ok := known[na.Name]
		if !ok {
			return nil, a.Fail("%v", model.NoParam(m, na.Name))
		}
		if v, ok := na.Value.(*eval.Vec); ok && p.Size == 0 {
			if gridName != "" {
				return nil, a.Fail("profile takes one grid; both %s and %s are vectors", gridName, na.Name)
			}
			gridName, grid = na.Name, v.Data
			continue
		}
		fixed[na.Name] = na.Value
	}
	if gridName == "" {
		return nil, a.Fail("give one parameter a grid of values, e.g. profile(%s, %s: logspace(-2, 2, 100))", m.Name, m.Params[0].Name)
	}
	if len(grid) == 0 {
		return nil, a.Fail("the grid of %s is empty", gridName)
	}
	th := a.Th
	c, err := model.Compile(th, a.Pos, m, fixed, terms)
	if err != nil {
		return nil, err
	}
	out, err := infer.Profile(a.Context(), th, c, gridName, grid)
	if err != nil {
		return nil, fitError(a, err)
	}
	rec := eval.NewRecord()
	rec.Set(gridName, &eval.Vec{Data: append([]float64(nil), grid...)})
	rec.Set("logp", &eval.Vec{Data: out})
	return rec, nil
}
