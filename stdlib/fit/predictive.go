package fit

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
)

// The predictive checks sit beside sample: they take the same model and
// posterior arguments, and simulation-based calibration, which draws data
// the same way, belongs with the fits too.

func registerPredictive(reg *eval.Registry) {
	reg.Register(`prior_predictive(m, draws = 1000, seed?)`,
		`Draws from model m's prior predictive by forward (ancestral) sampling, exactly (no MCMC): each parameter from its prior in statement order, given the ones drawn before it, then each observation's data from its distribution; a latent GP f ~ gp(X, k) is drawn at the rows of X from N(0, K_θ(X)) (by Cholesky, with the marginal likelihood's jitter when K is singular) before y is drawn given f. Refused, at the statement, where a statement cannot be drawn: target +=, an observation family (bke is a pseudolikelihood), a multi-class or Nyström latent GP, a flat() prior. Returns a record: kind, draws, seed, params (each parameter's draws: a vector, or a draws × K matrix), yrep (each observed variable's replicates, a draws × n matrix, one draw per row) and y (the observed data), and for a GP model latent (f's draws, draws × n) and latent_method ("prior"); plot draws it as ppc's.`,
		priorPredictiveBuiltin)
	reg.Register(`ppc(post, draws?, seed?)`,
		`Posterior predictive check (Gabry et al. 2019): one replicate of the observed data for each posterior draw of post (all of them, or draws evenly spaced ones), drawn from the observation distributions at that draw's parameters. For a GP model f is first drawn from its posterior given y and the draw's hyperparameters: exact for normal noise (mean K(K + s²I)⁻¹y, covariance K − K(K + s²I)⁻¹K), else the Gaussian q(f) of the approximation the posterior was sampled with (VB, Laplace or EP), as latent_method says. The same record as prior_predictive (params are the draws used). plot(check) overlays the replicates' densities on the data's; plot(check, stat: "mean") (also "sd", "median", "min", "max", or a function of a vector) shows the statistic's replicated distribution against its observed value.`,
		ppcBuiltin)
}

func priorPredictiveBuiltin(a *eval.Args) (eval.Value, error) {
	var m infer.ModelArg
	if err := a.Unpack("m", &m); err != nil {
		return nil, err
	}
	n, err := a.IntIn("draws", 1, eval.MaxLength)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	p, err := infer.PriorPredictive(a.Context(), a.Th.Fork(), m.Model, n, seed)
	if err != nil {
		return nil, predictiveError(a, err)
	}
	return p.Record(), nil
}

func ppcBuiltin(a *eval.Args) (eval.Value, error) {
	var post infer.PosteriorArg
	if err := a.Unpack("post", &post); err != nil {
		return nil, err
	}
	total := 0
	for _, ch := range post.Values {
		total += len(ch)
	}
	n := total
	if a.Given("draws") {
		var err error
		if n, err = a.IntIn("draws", 1, total); err != nil {
			return nil, err
		}
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	p, err := infer.PosteriorPredictive(a.Context(), a.Th.Fork(), post.Posterior, n, seed)
	if err != nil {
		return nil, predictiveError(a, err)
	}
	return p.Record(), nil
}

// predictiveError shows an error of the forward run where it happened, in
// the model (the statement that cannot be drawn), noting the call.
func predictiveError(a *eval.Args, err error) error {
	var ae *ast.Error
	if errors.As(err, &ae) && !errors.Is(err, context.Canceled) {
		e := *ae
		e.Notes = append(slices.Clip(e.Notes), fmt.Sprintf("in the model's forward run for the call at %s", a.Pos))
		return &e
	}
	return fitError(a, err)
}
