package infer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/progress"
)

// Sample draws from c's posterior with NUTS under ctx (th's context, with
// the builtin's progress reporter: eval.Args.Context), then constrains the
// draws, lets the observation families check a spread of them, computes
// the derived quantities of every draw, and summarises them with the
// sampler's and the families' warnings. The result's seconds (Elapsed) are
// the whole of this: what a user compares with another sampler's time is
// the fit with its derived quantities, as Stan's includes its transformed
// parameters.
func Sample(ctx context.Context, th *eval.Thread, c *model.Compiled, s hmc.Settings) (*Posterior, error) {
	start := clock()
	res, err := hmc.Sample(ctx, func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil }, s)
	if err != nil {
		return nil, err
	}
	post := &Posterior{Model: c.Model, Comp: c, Names: c.Names(), Result: res, Settings: s}
	post.Values = make([][][]float64, len(res.Chains))
	// A model whose supports move with its parameters is constrained by
	// running it: then Density.DerivedChain constrains, from the program.
	// Otherwise each chain's rows share one array (each capped at its
	// row: the derived quantities are appended elsewhere), rather than
	// an allocation or three a draw.
	constrain := c.ConstrainsByRunning()
	cols := c.Columns()
	for ci, ch := range res.Chains {
		post.Values[ci] = make([][]float64, len(ch.Draws))
		if constrain {
			continue
		}
		rows := make([]float64, len(ch.Draws)*cols)
		for i, q := range ch.Draws {
			post.Values[ci][i] = c.Constrain(rows[i*cols:i*cols:(i+1)*cols], q)
		}
	}
	checkDraws(c.NewDensity(th.Fork()), res)
	unconstrained := make([][][]float64, len(res.Chains))
	total := 0
	for ci, ch := range res.Chains {
		unconstrained[ci] = ch.Draws
		total += len(ch.Draws)
	}
	task := progress.Start(ctx, "derived quantities", total)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	newDensity := func() *model.Density {
		d := c.NewDensity(th.Fork())
		d.OnDerivedRow = derivedRowHook
		return d
	}
	derivedWarnings, err := addDerived(ctx, newDensity, workers, post, unconstrained, s.Seed, constrain, func() { task.Add(1) })
	task.Done()
	if err != nil {
		return nil, err
	}
	res.Elapsed = clock().Sub(start)
	post.Summary = hmc.Summarize(post.Names, post.Values, res, s.MaxDepth)
	post.Summary.Warnings = append(post.Summary.Warnings, derivedWarnings...)
	if res.InitNote != "" {
		post.Summary.Warnings = append(post.Summary.Warnings, res.InitNote)
	}
	post.Summary.Warnings = append(post.Summary.Warnings, c.TakeWarnings()...)
	return post, nil
}

// clock is the time Sample measures with; derivedRowHook, when set, is
// given to every Density that computes a draw's derived quantities. Tests
// replace both to check what the seconds cover without timing anything.
var (
	clock          = time.Now
	derivedRowHook func(replayed bool)
)

// checkDraws lets observation families examine a spread of the draws (every
// chain's extremes in each coordinate and a thinned sample) for the
// pathologies they know, recording warnings on the Compiled. At most
// maxChecked draws per chain are examined, so a model with many parameters
// does not pay a density evaluation per coordinate.
func checkDraws(d *model.Density, res *hmc.Result) {
	const maxChecked = 64
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

// Optimum is what Optimize found.
type Optimum struct {
	// Values holds every parameter at the optimum (held ones as given),
	// then logp, converged, iterations, grad_norm, evaluations and maxls.
	Values *eval.Record
	// Warnings are for the user: the families' findings at the optimum and
	// a failure to converge.
	Warnings []string
	// Evaluations is the optimiser's (inference.Result's): those the
	// checks after the fit make are not counted.
	Evaluations int
}

// Optimize maximises c's objective by L-BFGS on the unconstrained scale (s
// gives the starts, seed and initial point), cancelled by ctx (th's
// context, or a builtin's, eval.Args.Context, carrying its progress line).
func Optimize(ctx context.Context, th *eval.Thread, c *model.Compiled, s inference.Settings) (*Optimum, error) {
	if s.GradTol == 0 && model.HasLatent(c.Model) {
		s.GradTol = model.GPGradTol
	}
	if s.LineSearchMax == 0 {
		s.LineSearchMax = inference.DefaultLineSearchMax
	}
	var r *inference.Result
	// post is the Density the checks after the fit evaluate: the first
	// one L-BFGS used, which has decided whether to replay its recording
	// (replay.go), so that the checks do not pay for that decision again,
	// and which remembers the last points it replayed, the optimum among
	// them (Density.Optimizing). Issue 39: the ML-II fit of
	// examples/gp_classify.kml's latent GP (n = 207) makes 27 fits of
	// Laplace's approximation (41, then 30, then 32 after the warm start
	// changed the optimiser's path by rounding): the latent GP term
	// answers a second evaluation at the same numbers, the verifying
	// replay's, from its memo (stdlib/gp's lastEval).
	var post *model.Density
	if c.Dim() == 0 {
		lp, err := c.NewDensity(th.Fork()).Value(nil)
		if err != nil {
			return nil, err
		}
		r = &inference.Result{Value: lp, Converged: true}
	} else {
		var err error
		newObj := func() (inference.Model, error) {
			d := c.NewDensity(th.Fork())
			d.Optimizing()
			if post == nil {
				post = d
			}
			return d, nil
		}
		if r, err = inference.Maximize(ctx, newObj, s); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			return nil, err
		}
	}
	rec := c.Values(r.X)
	rec.Set("logp", eval.Num(r.Value)).Set("converged", eval.Bool(r.Converged)).
		Set("iterations", eval.Num(r.Iterations)).Set("grad_norm", eval.Num(r.GradNorm)).
		Set("evaluations", eval.Num(r.Evaluations)).Set("maxls", eval.Num(s.LineSearchMax))
	if c.Dim() > 0 {
		post.Check(r.X)
	}
	opt := &Optimum{Values: rec, Warnings: c.TakeWarnings(), Evaluations: r.Evaluations}
	if !r.Converged && c.Dim() > 0 {
		opt.Warnings = append(opt.Warnings, fmt.Sprintf("optimize did not converge (%s); the result may not be a maximum", r.Status))
	}
	if !c.Terms.Prior && c.Dim() > 0 {
		opt.Warnings = append(opt.Warnings, absentFromLikelihood(post, c, r.X)...)
	}
	if r.Converged && c.Dim() > 0 {
		opt.Warnings = append(opt.Warnings, curvatureWarnings(post, c, r.X)...)
	}
	return opt, nil
}

// absentFromLikelihood names the free parameters the objective does not
// depend on — its gradient in them is exactly zero at the optimum and at two
// points around it — which an "ml" objective leaves wherever its start put
// them.
func absentFromLikelihood(d *model.Density, c *model.Compiled, x []float64) []string {
	dim := len(x)
	zero := make([]bool, dim)
	for i := range zero {
		zero[i] = true
	}
	grad := make([]float64, dim)
	for k, shift := range []float64{0, 0.37, -0.61} {
		if k > 0 && !anyAbsent(c, zero) {
			return nil // every parameter moves the objective at x
		}
		q := make([]float64, dim)
		for i := range q {
			q[i] = x[i] + shift*float64(1+(i+k)%3)
		}
		if _, err := d.LogDensity(grad, q); err != nil {
			return nil
		}
		for i, g := range grad {
			zero[i] = zero[i] && g == 0
		}
	}
	var out []string
	for _, s := range c.FreeSlots() {
		all := true
		for i := s.Off; i < s.Off+s.Free; i++ {
			all = all && zero[i]
		}
		if all {
			out = append(out, fmt.Sprintf("%s does not enter the likelihood, so the objective is flat in it and its value is only where the optimiser started; hold it with fix: or use %s", s.Name, priorObjective(c)))
		}
	}
	return out
}

// anyAbsent reports whether some free parameter's gradient is zero in
// every coordinate so far (zero).
func anyAbsent(c *model.Compiled, zero []bool) bool {
	for _, s := range c.FreeSlots() {
		all := true
		for i := s.Off; i < s.Off+s.Free; i++ {
			all = all && zero[i]
		}
		if all {
			return true
		}
	}
	return false
}

// Profile is c's objective along a grid of the free scalar parameter
// gridName, every other free parameter maximised at each grid point (warm
// started from the previous point's optimum): a profile likelihood. Grid
// points outside the prior's support, or where the maximisation fails, have
// density zero (−Inf). ctx cancels it and counts the grid points on its
// progress reporter.
func Profile(ctx context.Context, th *eval.Thread, c *model.Compiled, gridName string, grid []float64) ([]float64, error) {
	// The grid parameter's coordinate.
	gridIdx := -1
	for _, s := range c.FreeSlots() {
		if s.Name == gridName {
			gridIdx = s.Off
		}
	}
	if gridIdx < 0 {
		return nil, fmt.Errorf("%s is not a free parameter of model %s", gridName, c.Model.Name)
	}
	points := make([][]float64, len(grid))
	for i, x := range grid {
		q, err := c.Unconstrain(map[string]eval.Value{gridName: eval.Num(x)})
		if err == nil { // outside the prior's support: zero density
			points[i] = q
		}
	}
	newObj := func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil }
	out := make([]float64, len(grid))
	for i := range out {
		out[i] = math.Inf(-1)
	}
	if c.Dim() == 1 {
		var valid [][]float64
		var where []int
		for i, q := range points {
			if q != nil {
				valid = append(valid, q)
				where = append(where, i)
			}
		}
		vals, err := inference.Profile(ctx, newObj, valid, 0)
		if err != nil {
			return nil, err
		}
		for k, i := range where {
			out[i] = vals[k]
		}
		return out, nil
	}
	fixedCoord := make([]bool, c.Dim())
	fixedCoord[gridIdx] = true
	var prev []float64
	task := progress.Start(ctx, "points", len(points))
	defer task.Done()
	for i, q := range points {
		if i > 0 {
			task.Add(1) // the previous point is done
		}
		if q == nil {
			continue
		}
		init := append([]float64(nil), q...)
		for j := range init {
			if j != gridIdx && prev != nil {
				init[j] = prev[j]
			}
		}
		r, err := inference.Maximize(ctx, newObj, inference.Settings{Init: init, Fixed: fixedCoord, Workers: 1})
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			continue
		}
		out[i], prev = r.Value, r.X
	}
	return out, nil
}
