package infer

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/inference"
	"github.com/kml-lang/kml/runtime/progress"
)

// Approximation marks a Posterior made by an approximation (laplace or
// pathfinder) rather than by NUTS: its draws are independent draws from
// (or, for multi-path Pathfinder, importance resampled from) Gaussians on
// the unconstrained scale, and its reliability is the Pareto k̂ of the
// importance ratios p/q over the approximation's draws.
type Approximation struct {
	// Method is "laplace" or "pathfinder".
	Method string
	// Settings lists the settings used, "draws: 1000, seed: 7", as shown.
	Settings string
	// Khat is the Pareto k̂ of log p − log q over the approximation's
	// draws; −Inf when the ratios are constant (q is p).
	Khat float64
	// Notes are shown under the header (Pathfinder's per-path ELBO).
	Notes []string
	// Mode and Cov are Laplace's Gaussian on the unconstrained scale (Cov
	// D×D row-major); nil for Pathfinder.
	Mode, Cov []float64
}

// KhatThreshold is the k̂ above which importance sampling from the
// approximation is unreliable (Vehtari et al. 2024, for the draws here).
const KhatThreshold = 0.7

// khatText prints k̂, −Inf as "−Inf (the ratios p/q are constant)".
func khatText(k float64) string {
	if math.IsInf(k, -1) {
		return "-Inf (the ratios p/q are constant: q is the posterior)"
	}
	return fmt.Sprintf("%.2f", k)
}

// header is the line above an approximation's summary table.
func (a *Approximation) header(draws int, seconds float64) string {
	s := fmt.Sprintf("%s (%s): %d draws, Pareto k̂ %s, %.2f s", a.Method, a.Settings, draws, khatText(a.Khat), seconds)
	for _, n := range a.Notes {
		s += "\n" + n
	}
	return s
}

// khatWarning is the warning for a k̂ above KhatThreshold, or "".
func (a *Approximation) khatWarning() string {
	if !(a.Khat > KhatThreshold) {
		return ""
	}
	return fmt.Sprintf("Pareto k̂ = %.2f > %.1f: the %s approximation is far from the posterior (the importance ratios p/q have a heavy tail), so its means, sds and quantiles are unreliable; use sample", a.Khat, KhatThreshold, a.Method)
}

// approxPosterior makes a Posterior of res's draws (unconstrained), as
// Sample does for NUTS's: constrained, with the derived quantities of each
// draw, summarised as one chain. The sampler's columns hold lp__ = log p
// and zeros.
func approxPosterior(ctx context.Context, th *eval.Thread, c *model.Compiled, res *inference.Approx, ap *Approximation, seed uint64, t0 time.Time) (*Posterior, error) {
	n := len(res.Draws)
	ch := &hmc.Chain{Draws: res.Draws, LP: res.LogP, AcceptStat: make([]float64, n), StepSize: make([]float64, n),
		Energy: make([]float64, n), TreeDepth: make([]int, n), NLeapfrog: make([]int, n), Divergent: make([]bool, n)}
	r := &hmc.Result{Dim: c.Dim(), Draws: n, Chains: []*hmc.Chain{ch}, GradEvals: res.Evals}
	post := &Posterior{Model: c.Model, Comp: c, Names: c.Names(), Result: r, Approx: ap}
	post.Settings.Draws, post.Settings.Chains, post.Settings.Seed = n, 1, seed
	constrain := c.ConstrainsByRunning()
	post.Values = [][][]float64{make([][]float64, n)}
	if !constrain {
		for i, q := range res.Draws {
			// 5e7 draws take minutes here: stop on an interrupt.
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			post.Values[0][i] = c.Constrain(nil, q)
		}
	}
	checkDraws(c.NewDensity(th.Fork()), r)
	task := progress.Start(ctx, "derived quantities", n)
	newDensity := func() *model.Density {
		d := c.NewDensity(th.Fork())
		d.OnDerivedRow = derivedRowHook
		return d
	}
	derivedWarnings, err := addDerived(ctx, newDensity, runtime.GOMAXPROCS(0), post, [][][]float64{res.Draws}, seed, constrain, func() { task.Add(1) })
	task.Done()
	if err != nil {
		return nil, err
	}
	r.Elapsed = clock().Sub(t0)
	// No tree depth to saturate; the warm-up warning is the sampler's.
	post.Summary = hmc.Summarize(post.Names, post.Values, r, math.MaxInt32)
	var warnings []string
	if w := ap.khatWarning(); w != "" {
		warnings = append(warnings, w)
	}
	for _, w := range post.Summary.Warnings {
		if !strings.HasPrefix(w, "warmup: 0") {
			warnings = append(warnings, w)
		}
	}
	warnings = append(warnings, derivedWarnings...)
	post.Summary.Warnings = append(warnings, c.TakeWarnings()...)
	return post, nil
}

// Laplace draws from the Laplace approximation of c's posterior (c compiled
// with the Jacobian, as CmdStan's laplace with jacobian=1): the mode by
// L-BFGS on the unconstrained scale, then N(mode, (−H)⁻¹) with H the Hessian
// of the log density there (inference.Laplace), the draws mapped back
// through each parameter's transform.
func Laplace(ctx context.Context, th *eval.Thread, c *model.Compiled, draws int, seed uint64) (*Posterior, error) {
	t0 := clock()
	newObj := func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil }
	opt, err := inference.Maximize(ctx, newObj, inference.Settings{Seed: seed})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	var notes []string
	if !opt.Converged {
		notes = append(notes, fmt.Sprintf("the optimiser stopped short of convergence (%s, gradient norm %.2g): the mode may be inexact", opt.Status, opt.GradNorm))
	}
	task := progress.Start(ctx, "Hessian columns and draws", c.Dim()+draws)
	res, cov, err := inference.Laplace(ctx, c.NewDensity(th.Fork()), opt.X, draws, seed, func() { task.Add(1) })
	task.Done()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	ap := &Approximation{Method: "laplace", Settings: fmt.Sprintf("draws: %d, seed: %d", draws, seed), Khat: res.Khat,
		Mode: opt.X, Cov: cov, Notes: notes}
	return approxPosterior(ctx, th, c, res, ap, seed, t0)
}

// Pathfinder draws from multi-path Pathfinder's approximation of c's
// posterior (inference.PathfinderFit), progress counted in L-BFGS
// iterations.
func Pathfinder(ctx context.Context, th *eval.Thread, c *model.Compiled, s inference.PathfinderSettings) (*Posterior, error) {
	t0 := clock()
	full := s.WithDefaults()
	task := progress.Start(ctx, "L-BFGS iterations (at most)", full.Paths*full.MaxIter)
	defer task.Done() // on every return: a task left shown would tick on
	s.Step = func() { task.Add(1) }
	models, err := inference.NewModels(func() (inference.Model, error) { return c.NewDensity(th.Fork()), nil },
		max(1, min(full.Paths, runtime.GOMAXPROCS(0))))
	if err != nil {
		return nil, err
	}
	res, err := inference.PathfinderFit(ctx, models, s)
	task.Done()
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	var elbo []string
	for p, e := range res.PathELBO {
		elbo = append(elbo, fmt.Sprintf("%d: %.4g after %d iterations", p+1, e, res.PathIters[p]))
	}
	ap := &Approximation{Method: "pathfinder", Khat: res.Khat,
		Settings: fmt.Sprintf("paths: %d, draws: %d, single-path draws: %d, ELBO draws: %d, history: %d, seed: %d",
			full.Paths, full.Draws, full.SingleDraws, full.ElboDraws, full.History, full.Seed),
		Notes: []string{"best ELBO per path: " + strings.Join(elbo, "; ")}}
	return approxPosterior(ctx, th, c, res, ap, s.Seed, t0)
}
