package fit

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/hmc"
)

// sbc sits beside prior_predictive: it draws data the same way
// (model.Forward) and fits them as sample does.

func registerSBC(reg *eval.Registry) {
	reg.Register(`sbc(m, sims = 200, seed?, fit?, chains = 1, warmup = 500, draws = 500, thin = 0, adapt_delta = 0.8, max_depth = 10, metric = "diag", alpha = 0.05, null_sims = 2000)`,
		`Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023): for each of sims simulations, draws the parameters of model m from their priors and data by forward sampling, fits the model (or the model fit, observing the same variables) to the simulated data with NUTS (chains × warmup + draws; adapt_delta, max_depth and metric as sample), and ranks each parameter's prior draw among its thinned posterior draws. thin = 0 chooses the stride as ⌈N / ESS⌉ (N = chains × draws, ESS the median over the simulations of the smallest bulk ESS), so about ESS draws are kept; the ranks are out of L. Uniformity is tested per parameter by the ECDF test of Säilynoja, Bürkner and Vehtari (2022) with a simultaneous 1 − alpha band simulated from null_sims uniform samples. For a GP model f is drawn at the inputs from N(0, K_θ(X)) and only the hyperparameters are ranked, refitted by NUTS under the marginal likelihood as sample does (exact for normal noise). Simulations run in parallel, each from its own seeded stream. Refused, at the statement, where m cannot be forward-sampled (as prior_predictive). Returns a record: params, ranks (sims × params), prior, L, p_values, test, the settings, and the fits' divergences, divergent_fits, max_rhat, rhat_fits and median_min_ess; plot draws the ECDF-difference plot with its band.`,
		sbcBuiltin)
}

// maxSims bounds sims: each keeps its draws until the thinning is chosen.
const maxSims = 100_000

func sbcBuiltin(a *eval.Args) (eval.Value, error) {
	var m infer.ModelArg
	if err := a.Unpack("m", &m); err != nil {
		return nil, err
	}
	fitModel := m.Model
	if a.Given("fit") {
		var f infer.ModelArg
		if err := a.Unpack("fit", &f); err != nil {
			return nil, err
		}
		fitModel = f.Model
	}
	var s infer.SBCSettings
	var err error
	if s.Sims, err = a.IntIn("sims", 2, maxSims); err != nil {
		return nil, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return nil, err
	}
	// The NUTS settings are read as sample and kfold read them.
	h, err := infer.SamplerArgs(a)
	if err != nil {
		return nil, err
	}
	h.Init = hmc.InitPathfinder
	if err = a.Unpack("alpha", &s.Alpha); err != nil {
		return nil, err
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return nil, a.Errorf("alpha", "alpha must be between 0 and 1, got %v", s.Alpha)
	}
	if s.Thin, err = a.IntIn("thin", 0, h.Draws); err != nil {
		return nil, err
	}
	if s.NullSims, err = a.IntIn("null_sims", 100, 1_000_000); err != nil {
		return nil, err
	}
	s.Sampler = h
	r, err := infer.SBCRun(a.Context(), a.Th, a.Pos, m.Model, fitModel, s)
	if err != nil {
		return nil, predictiveError(a, err)
	}
	return r.Record(), nil
}
