package infer

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/hmc"
)

// Limits on sampler settings: beyond them a run would exhaust memory
// (chains × draws are kept) or never end, and the value is surely a slip.
const (
	MaxChains    = 1024
	MaxTreeDepth = 30
)

// SamplerArgs reads the NUTS settings of a builtin that samples as
// `sample` does — chains, warmup, draws, max_depth, adapt_delta and metric
// — with their limits and messages, in that order, so that sample and the
// builtins that refit with NUTS (kfold) take them alike.
func SamplerArgs(a *eval.Args) (hmc.Settings, error) {
	var s hmc.Settings
	var err error
	if s.Chains, err = a.IntIn("chains", 1, MaxChains); err != nil {
		return s, err
	}
	if s.Warmup, err = a.IntIn("warmup", 0, eval.MaxLength); err != nil {
		return s, err
	}
	s.NoWarmup = s.Warmup == 0
	if s.Draws, err = a.IntIn("draws", 1, eval.MaxLength); err != nil {
		return s, err
	}
	if s.MaxDepth, err = a.IntIn("max_depth", 1, MaxTreeDepth); err != nil {
		return s, err
	}
	if s.Chains*s.Draws > eval.MaxLength {
		return s, a.Errorf("draws", "%d chains × %d draws is more than the %d draws a posterior may hold", s.Chains, s.Draws, eval.MaxLength)
	}
	var metric string
	if err = a.Unpack("adapt_delta", &s.AdaptDelta, "metric", &metric); err != nil {
		return s, err
	}
	if !(s.AdaptDelta > 0 && s.AdaptDelta < 1) {
		return s, a.Errorf("adapt_delta", "adapt_delta must be between 0 and 1, got %v", s.AdaptDelta)
	}
	switch metric {
	case "diag":
		s.Metric = hmc.Diag
	case "dense":
		s.Metric = hmc.Dense
	default:
		return s, a.Errorf("metric", "metric must be \"diag\" or \"dense\", got %s", eval.Describe(a.Value("metric")))
	}
	return s, nil
}

// MetricName is the metric argument that gives m: "diag" or "dense", as
// results report it.
func MetricName(m hmc.Metric) string {
	if m == hmc.Dense {
		return "dense"
	}
	return "diag"
}
