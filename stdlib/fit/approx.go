package fit

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/inference"
)

// The approximate posteriors, laplace_sample and pathfinder (laplace is the
// Laplace distribution; the name is CmdStanPy's laplace_sample): posteriors that
// summary, predict, save and plot take like sample's, marked with their
// method and the Pareto k̂ of their importance ratios.

func registerApprox(reg *eval.Registry) {
	reg.Register(`laplace_sample(m, draws = 1000, seed?)`,
		`The Laplace approximation of model m's posterior, as CmdStan's laplace method: the mode of the log density on the unconstrained scale (with the Jacobian) by L-BFGS, then draws from the Gaussian N(mode, (-H)^-1), H the Hessian there by central differences of the exact gradient, mapped back through each parameter's transform. Returns a posterior (one chain of independent draws) that summary, predict, save and plot take, marked "laplace", with the Pareto k-hat of log p - log q over the draws as its reliability (a warning above 0.7).`,
		laplaceBuiltin)
	reg.Register(`pathfinder(m, draws = 1000, paths = 4, single_draws = 1000, elbo_draws = 25, history = 5, max_iters = 1000, seed?)`,
		`Multi-path Pathfinder (Zhang, Carpenter, Gelman and Vehtari 2022) with CmdStan's defaults: paths L-BFGS runs from uniform starts in (-2, 2) on the unconstrained scale (history pairs, at most max_iters iterations), each choosing along its path the Gaussian (mean and covariance from the L-BFGS inverse Hessian) of highest ELBO (elbo_draws Monte Carlo draws each) and drawing single_draws from it; the pooled draws are Pareto-smoothed importance resampled to draws (with paths = 1 the single path's draws are returned). Returns a posterior that summary, predict, save and plot take, marked "pathfinder", with the Pareto k-hat of log p - log q over the pooled draws as its reliability (a warning above 0.7).`,
		pathfinderBuiltin)
}

// approxModel compiles m for an approximation: priors, likelihood and the
// Jacobian, as sample takes it (a latent GP under its "vb" approximation).
func approxModel(a *eval.Args) (*model.Compiled, error) {
	var marg infer.ModelArg
	if err := a.Unpack("m", &marg); err != nil {
		return nil, err
	}
	terms := model.Terms{Prior: true, Likelihood: true, Jacobian: true}
	terms.Latent.Approx = rgp.DefaultApprox
	c, err := model.Compile(a.Th, a.Pos, marg.Model, nil, terms)
	if err != nil {
		return nil, err
	}
	if c.Dim() == 0 {
		return nil, a.Errorf("m", "model %s has no free parameters to approximate", marg.Model.Name)
	}
	return c, nil
}

func laplaceBuiltin(a *eval.Args) (eval.Value, error) {
	c, err := approxModel(a)
	if err != nil {
		return nil, err
	}
	draws, err := a.IntIn("draws", 1, eval.MaxLength)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	if err := infer.CheckDraws(a, c, 1, draws); err != nil {
		return nil, err
	}
	post, err := infer.Laplace(a.Context(), a.Th, c, draws, seed)
	if err != nil {
		return nil, fitError(a, err)
	}
	return post, nil
}

func pathfinderBuiltin(a *eval.Args) (eval.Value, error) {
	c, err := approxModel(a)
	if err != nil {
		return nil, err
	}
	var s inference.PathfinderSettings
	for _, f := range []struct {
		name    string
		dst     *int
		lo, top int
	}{
		{"draws", &s.Draws, 1, eval.MaxLength},
		{"paths", &s.Paths, 1, 1024},
		{"single_draws", &s.SingleDraws, 1, eval.MaxLength},
		{"elbo_draws", &s.ElboDraws, 1, 1_000_000},
		{"history", &s.History, 1, 1000},
		{"max_iters", &s.MaxIter, 1, 1_000_000},
	} {
		if *f.dst, err = a.IntIn(f.name, f.lo, f.top); err != nil {
			return nil, err
		}
	}
	if s.Paths*s.SingleDraws > eval.MaxLength {
		return nil, a.Errorf("single_draws", "%d paths × %d draws is more than the %d draws a posterior may pool", s.Paths, s.SingleDraws, eval.MaxLength)
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	// The pooled draws of every path are held while they are resampled.
	if err := a.CheckDense(s.Paths*s.SingleDraws, c.Dim(), fmt.Sprintf("the %d paths × %d draws pooled", s.Paths, s.SingleDraws), "ask for fewer single_draws"); err != nil {
		return nil, err
	}
	if err := infer.CheckDraws(a, c, 1, s.Draws); err != nil {
		return nil, err
	}
	post, err := infer.Pathfinder(a.Context(), a.Th, c, s)
	if err != nil {
		return nil, fitError(a, err)
	}
	return post, nil
}
