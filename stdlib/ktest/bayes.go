package ktest

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

// BayesSettings reads the settings of the "bayes" kernel choice: draws, S.
func BayesSettings(a *eval.Args) (rktest.BayesSettings, error) {
	var s rktest.BayesSettings
	var err error
	if a.Given("draws") {
		if s.Draws, err = a.IntIn("draws", 1, 10000); err != nil {
			return s, err
		}
	}
	// landmarks and noise as "bkl" reads them when given; "auto" keeps
	// the settings the level was checked at (min(50, n/5), τ² = 1).
	o, err := BKLOptions(a)
	if err != nil {
		return s, err
	}
	s.Landmarks, s.Tau2, s.Variant = o.Landmarks, o.Tau2, o.Variant
	return s, nil
}

// BayesRecord is the record of a "bayes" choice's draws: their summary,
// the prior, the grid posterior's modes and the NUTS run with its
// diagnostics and starting points.
func BayesRecord(info *rktest.BayesInfo) *eval.Record {
	s := info.Settings
	warn := &eval.List{}
	for _, w := range info.Warnings {
		warn.Elems = append(warn.Elems, eval.Str(w))
	}
	nuts := eval.NewRecord().Set("chains", eval.Num(s.Chains)).Set("warmup", eval.Num(s.Warmup)).
		Set("iterations", eval.Num(s.PerChain)).Set("divergences", eval.Num(info.Divergences)).
		Set("rhat", eval.Num(info.Rhat)).Set("ess", eval.Num(info.ESS)).
		Set("chain_means", &eval.Vec{Data: info.ChainMeans}).Set("inits", &eval.Vec{Data: info.Inits}).
		Set("seconds", eval.Num(info.Seconds))
	modes := &eval.List{}
	for _, md := range info.Modes {
		modes.Elems = append(modes.Elems, eval.NewRecord().Set("ell", eval.Num(md.Ell)).Set("mass", eval.Num(md.Mass)).
			Set("below", eval.Num(md.Below)))
	}
	return eval.NewRecord().Set("draws", eval.Num(s.Draws)).Set("mean", eval.Num(info.Mean)).
		Set("q5", eval.Num(info.Q5)).Set("q95", eval.Num(info.Q95)).
		Set("prior", eval.Str(fmt.Sprintf("gamma(%g, %g)", s.Shape, s.Rate))).
		Set("modes", modes).Set("nuts", nuts).Set("warnings", warn).Set("variant", eval.Str(s.Variant.String()))
}

// WarnBayes prints, at the call, each diagnostic of the "bayes" choice's
// NUTS run for what (R-hat and ESS at the thresholds summary uses,
// divergences, several modes), which the result's bayes.warnings also holds.
func WarnBayes(a *eval.Args, what string, info *rktest.BayesInfo) {
	for _, w := range info.Warnings {
		a.Th.Interp().Warn(a.Pos, fmt.Sprintf("bayes: the lengthscale draws of %s: %s", what, w))
	}
}

// BayesFields adds an HSIC record's bayes: {x, y} when either side's
// kernel was chosen by "bayes".
func BayesFields(rec *eval.Record, cx, cy rktest.Chosen) {
	if cx.Bayes == nil && cy.Bayes == nil {
		return
	}
	b := eval.NewRecord()
	if cx.Bayes != nil {
		b.Set("x", BayesRecord(cx.Bayes))
	}
	if cy.Bayes != nil {
		b.Set("y", BayesRecord(cy.Bayes))
	}
	rec.Set("bayes", b)
}
