package stdlib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/inference"
)

func init() {
	eval.Register(`sample(m, chains = 4, warmup = 1000, draws = 1000, seed?, adapt_delta = 0.8, max_depth = 10, metric = "diag", init = "pathfinder", fix?)`,
		`Draws from the posterior of model m with NUTS (Stan's algorithm and warm-up). Chains run in parallel; the same seed gives the same draws on any number of cores. metric: "diag" or "dense". init: "pathfinder" (default: starting points resampled from quasi-Newton Gaussian fits, so chains start where the mass is), "uniform" (Stan's: uniform in (-2, 2) on the unconstrained scale) or a record of starting values. fix: a record of parameters held at given values. Returns a posterior: summary(post), post.NAME (all draws), save(post, to: "draws.csv").`,
		sampleBuiltin)
	eval.Register(`optimize(m, fix?, starts = 1, seed?, objective = "map", init?)`,
		`Maximises model m's log density by L-BFGS on the unconstrained scale. objective: "map" (priors plus likelihood, default) or "ml" (ML-II: the likelihood alone; also "mlm"). fix: a record of parameters held at given values; starts: seeded multi-start, keeping the best. Returns a record with each parameter (constrained scale), logp (the maximised objective), converged, iterations and grad_norm.`,
		optimizeBuiltin)
	eval.Register(`profile(m, objective = "map", **)`,
		`The log density of model m along a grid: profile(m, ell: logspace(-2, 2, 100), tau2: 1). One parameter takes a vector (the grid); others take values; parameters left out are maximised at each grid point (a profile likelihood). objective: "map" (log prior + log likelihood) or "ml" (log likelihood alone). Returns a record {NAME: grid, logp: values} that plot draws.`,
		profileBuiltin)
	eval.Register(`summary(post)`,
		`The posterior summary: mean, MCSE, sd, 5%, 50% and 95% quantiles, bulk and tail ESS and rank-normalised R-hat per parameter (Vehtari et al. 2021), with warnings for R-hat > 1.01, low ESS, divergences, low E-BFMI and tree-depth saturation. Prints as a table; --json writes the object of the language reference.`,
		func(a *eval.Args) (eval.Value, error) {
			p, ok := a.Value("post").(*Posterior)
			if !ok {
				return nil, a.Errorf("post", "post must be a posterior from sample, got %s", eval.Describe(a.Value("post")))
			}
			return &SummaryVal{S: p.Summary}, nil
		})
	eval.Register(`draws(post, name)`,
		`Every draw of parameter name (all chains): a vector, or a draws × K matrix for a vector parameter. Same as post.NAME.`,
		func(a *eval.Args) (eval.Value, error) {
			p, ok := a.Value("post").(*Posterior)
			if !ok {
				return nil, a.Errorf("post", "post must be a posterior from sample, got %s", eval.Describe(a.Value("post")))
			}
			name, err := a.Str("name")
			if err != nil {
				return nil, err
			}
			v, ok := p.Attr(name)
			if !ok {
				return nil, a.Errorf("name", "the posterior has no parameter %q; it has %s", name, strings.Join(p.AttrNames(), ", "))
			}
			return v, nil
		})
}

// fixedArg reads the optional `fix:` record.
func fixedArg(a *eval.Args) (map[string]eval.Value, error) {
	if a.Value("fix") == nil {
		return nil, nil
	}
	return recordValues(a, "fix")
}

func objectiveTerms(a *eval.Args) (eval.Terms, error) {
	obj, err := a.Str("objective")
	if err != nil {
		return eval.Terms{}, err
	}
	switch obj {
	case "map":
		return eval.Terms{Prior: true, Likelihood: true}, nil
	case "ml", "mlm":
		return eval.Terms{Likelihood: true}, nil
	case "vb", "mkl", "rr":
		return eval.Terms{}, a.Errorf("objective", "objective %q applies to GP models with a latent function; this model takes \"map\" or \"ml\"", obj)
	}
	return eval.Terms{}, a.Errorf("objective", "objective must be \"map\" or \"ml\", got %q", obj)
}

// intArg reads an integer setting between lo and hi.
func intArg(a *eval.Args, name string, lo, hi int) (int, error) {
	n, err := a.Int(name)
	switch {
	case err != nil:
	case n < lo:
		err = a.Errorf(name, "%s must be at least %d, got %d", name, lo, n)
	case n > hi:
		err = a.Errorf(name, "%s must be at most %d, got %d", name, hi, n)
	}
	return n, err
}

// Limits on sampler settings: beyond them a run would exhaust memory
// (chains × draws are kept) or never end, and the value is surely a slip.
const (
	maxChains    = 1024
	maxTreeDepth = 30
	maxDenseDim  = 2000
)

func sampleBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := modelArg(a, "m")
	if err != nil {
		return nil, err
	}
	var s hmc.Settings
	if s.Chains, err = intArg(a, "chains", 1, maxChains); err != nil {
		return nil, err
	}
	if s.Warmup, err = intArg(a, "warmup", 0, eval.MaxLength); err != nil {
		return nil, err
	}
	s.NoWarmup = s.Warmup == 0
	if s.Draws, err = intArg(a, "draws", 1, eval.MaxLength); err != nil {
		return nil, err
	}
	if s.MaxDepth, err = intArg(a, "max_depth", 1, maxTreeDepth); err != nil {
		return nil, err
	}
	if s.Chains*s.Draws > eval.MaxLength {
		return nil, a.Errorf("draws", "%d chains × %d draws is more than the %d draws a posterior may hold", s.Chains, s.Draws, eval.MaxLength)
	}
	if s.AdaptDelta, err = a.Num("adapt_delta"); err != nil {
		return nil, err
	}
	if !(s.AdaptDelta > 0 && s.AdaptDelta < 1) {
		return nil, a.Errorf("adapt_delta", "adapt_delta must be between 0 and 1, got %v", s.AdaptDelta)
	}
	switch metric, _ := a.Str("metric"); metric {
	case "diag":
		s.Metric = hmc.Diag
	case "dense":
		s.Metric = hmc.Dense
	default:
		return nil, a.Errorf("metric", "metric must be \"diag\" or \"dense\", got %s", eval.Describe(a.Value("metric")))
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	fixed, err := fixedArg(a)
	if err != nil {
		return nil, err
	}
	th := a.Th
	c, err := th.Compile(a.Pos, m, fixed, eval.Terms{Prior: true, Likelihood: true, Jacobian: true})
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
		vals, _ := recordValues(a, "init")
		q, err := c.Unconstrain(vals)
		if err != nil {
			return nil, a.Errorf("init", "%v", err)
		}
		s.InitPoint = q
	default:
		return nil, a.Errorf("init", "init must be \"pathfinder\", \"uniform\" or a record of values, got %s", eval.Describe(v))
	}
	if th.Interp().Options().Progress {
		s.Progress = th.Interp().Stderr()
	}
	res, err := hmc.Sample(th.Context(), func() (hmc.Model, error) { return c.NewDensity(th.Fork()), nil }, s)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, a.Fail("interrupted")
		}
		return nil, a.Fail("%v", err)
	}
	post := &Posterior{Model: m, Comp: c, Names: c.Names(), Result: res, MaxDepth: s.MaxDepth}
	post.Values = make([][][]float64, len(res.Chains))
	for ci, ch := range res.Chains {
		post.Values[ci] = make([][]float64, len(ch.Draws))
		for i, q := range ch.Draws {
			post.Values[ci][i] = c.Constrain(nil, q)
		}
	}
	checkDraws(th, c, res)
	post.Summary = hmc.Summarize(post.Names, post.Values, res, s.MaxDepth)
	if res.InitNote != "" {
		post.Summary.Warnings = append(post.Summary.Warnings, res.InitNote)
	}
	post.Summary.Warnings = append(post.Summary.Warnings, c.TakeWarnings()...)
	return post, nil
}

// checkDraws lets observation families examine a spread of the draws (every
// chain's extremes in each coordinate and a thinned sample) for the
// pathologies they know, recording warnings on c. At most maxChecked draws
// per chain are examined, so a model with many parameters does not pay a
// density evaluation per coordinate.
func checkDraws(th *eval.Thread, c *eval.Compiled, res *hmc.Result) {
	const maxChecked = 64
	d := c.NewDensity(th.Fork())
	for _, ch := range res.Chains {
		if len(ch.Draws) == 0 {
			continue
		}
		var picks []int
		step := max(1, len(ch.Draws)/10)
		for i := 0; i < len(ch.Draws); i += step {
			picks = append(picks, i)
		}
		for k := 0; k < res.Dim; k++ {
			lo, hi := 0, 0
			for i, q := range ch.Draws {
				if q[k] < ch.Draws[lo][k] {
					lo = i
				}
				if q[k] > ch.Draws[hi][k] {
					hi = i
				}
			}
			picks = append(picks, lo, hi)
			if len(picks) >= 2*maxChecked {
				break
			}
		}
		seen := map[int]bool{}
		for _, i := range picks {
			if !seen[i] && len(seen) < maxChecked {
				seen[i] = true
				d.Check(ch.Draws[i])
			}
		}
	}
}

func optimizeBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := modelArg(a, "m")
	if err != nil {
		return nil, err
	}
	terms, err := objectiveTerms(a)
	if err != nil {
		return nil, err
	}
	fixed, err := fixedArg(a)
	if err != nil {
		return nil, err
	}
	starts, err := intArg(a, "starts", 1, 10_000)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	th := a.Th
	c, err := th.Compile(a.Pos, m, fixed, terms)
	if err != nil {
		return nil, err
	}
	s := inference.Settings{Starts: starts, Seed: seed}
	if a.Value("init") != nil {
		vals, err := recordValues(a, "init")
		if err != nil {
			return nil, err
		}
		if s.Init, err = c.Unconstrain(vals); err != nil {
			return nil, a.Errorf("init", "%v", err)
		}
	}
	newObj := func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil }
	var r *inference.Result
	if c.Dim() == 0 {
		lp, err := c.NewDensity(th.Fork()).Value(nil)
		if err != nil {
			return nil, err
		}
		r = &inference.Result{Value: lp, Converged: true}
	} else if r, err = inference.Maximize(th.Context(), newObj, s); err != nil {
		if th.Context().Err() != nil {
			return nil, a.Fail("interrupted")
		}
		return nil, a.Fail("%v", err)
	}
	rec := eval.NewRecord()
	cons := c.Constrain(nil, r.X)
	off := 0
	for _, p := range m.Params {
		if v, ok := fixed[p.Name]; ok {
			rec.Set(p.Name, v)
			continue
		}
		if p.Size == 0 {
			rec.Set(p.Name, eval.Num(cons[off]))
		} else {
			rec.Set(p.Name, &eval.Vec{Data: append([]float64(nil), cons[off:off+p.Dim()]...)})
		}
		off += p.Dim()
	}
	rec.Set("logp", eval.Num(r.Value)).Set("converged", eval.Bool(r.Converged)).
		Set("iterations", eval.Num(r.Iterations)).Set("grad_norm", eval.Num(r.GradNorm))
	if c.Dim() > 0 {
		c.NewDensity(th.Fork()).Check(r.X)
	}
	for _, w := range c.TakeWarnings() {
		th.Interp().Warn(a.Pos, w)
	}
	if !r.Converged && c.Dim() > 0 {
		th.Interp().Warn(a.Pos, fmt.Sprintf("optimize did not converge (%s); the result may not be a maximum", r.Starts[0].Status))
	}
	return rec, nil
}

func profileBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := modelArg(a, "m")
	if err != nil {
		return nil, err
	}
	terms, err := objectiveTerms(a)
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
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, a.Fail("model %s has no parameter %q; its parameters are %s", m.Name, na.Name, strings.Join(names, ", "))
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
	c, err := th.Compile(a.Pos, m, fixed, terms)
	if err != nil {
		return nil, err
	}
	// The grid parameter's coordinate, and the free ones to maximise.
	gridIdx := -1
	off := 0
	for _, p := range c.FreeParams() {
		if p.Name == gridName {
			gridIdx = off
		}
		off += p.Dim()
	}
	points := make([][]float64, len(grid))
	for i, x := range grid {
		q, err := c.Unconstrain(map[string]eval.Value{gridName: eval.Num(x)})
		if err != nil {
			points[i] = nil // outside the prior's support: zero density
			continue
		}
		points[i] = q
	}
	newObj := func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil }
	out := make([]float64, len(grid))
	if c.Dim() == 1 {
		var valid [][]float64
		var where []int
		for i, q := range points {
			if q != nil {
				valid = append(valid, q)
				where = append(where, i)
			}
		}
		for i := range out {
			out[i] = math.Inf(-1)
		}
		vals, err := inference.Profile(th.Context(), newObj, valid, 0)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		for k, i := range where {
			out[i] = vals[k]
		}
	} else {
		// Maximise the other free parameters at each grid point, warm
		// starting from the previous optimum.
		fixedCoord := make([]bool, c.Dim())
		fixedCoord[gridIdx] = true
		var prev []float64
		for i, q := range points {
			if q == nil {
				out[i] = math.Inf(-1)
				continue
			}
			init := append([]float64(nil), q...)
			for j := range init {
				if j != gridIdx && prev != nil {
					init[j] = prev[j]
				}
			}
			r, err := inference.Maximize(th.Context(), newObj, inference.Settings{Init: init, Fixed: fixedCoord, Workers: 1})
			if err != nil {
				if th.Context().Err() != nil {
					return nil, a.Fail("interrupted")
				}
				out[i] = math.Inf(-1)
				continue
			}
			out[i], prev = r.Value, r.X
		}
	}
	rec := eval.NewRecord()
	rec.Set(gridName, &eval.Vec{Data: append([]float64(nil), grid...)})
	rec.Set("logp", &eval.Vec{Data: out})
	return rec, nil
}
