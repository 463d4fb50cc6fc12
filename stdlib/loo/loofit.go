package loo

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	rloo "github.com/kml-lang/kml/runtime/loo"
)

// FitLOOValue is what loo returns for an optimize fit of a GP model: each
// point's log p(yᵢ | y₋ᵢ, θ̂) at the fitted hyperparameters θ̂ (exact for
// normal observations, the approximation's cavities otherwise), summed
// with its standard error as loo's elpd_loo. It is conditional on θ̂: no
// draws, so no PSIS, no Pareto k̂ and no p_loo; the record says so with
// conditional: true and holds the values it is conditional on.
type FitLOOValue struct {
	Model    string
	Elpd, IC rloo.Estimate
	ElpdI    []float64
	ICI      []float64
	Values   *eval.Record
	// Objective and Approx are the fit's, as optimize's record names them.
	Objective, Approx string
}

var _ eval.HasAttrs = (*FitLOOValue)(nil)

// looFit is loo of rec, what optimize returned for a model with a latent
// GP.
func looFit(a *eval.Args, rec *eval.Record) (eval.Value, error) {
	fit, ok := model.LatentFitOf(rec)
	if !ok {
		return nil, a.Errorf("post", "loo takes a posterior from sample, or what optimize returned for a model with a latent GP (leave-one-out at the fitted hyperparameters); this record is neither")
	}
	if a.Given("r_eff") {
		return nil, a.Errorf("r_eff", "r_eff sets PSIS's tail for draws; loo of an optimize fit has no draws")
	}
	values := map[string]eval.Value{}
	held := eval.NewRecord()
	for _, p := range fit.Model.Params {
		v, ok := rec.Attr(p.Name)
		if !ok {
			return nil, a.Errorf("post", "the fit has no value for parameter %s", p.Name)
		}
		values[p.Name] = v
		held.Set(p.Name, v)
	}
	ll, err := infer.PointwiseAtValues(a.Th, a.Pos, fit.Model, values, fit.Objective)
	if err != nil {
		var ae *ast.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, a.Errorf("post", "%v", err)
	}
	field := func(name string) string {
		v, _ := rec.Attr(name)
		s, _ := v.(eval.Str)
		return string(s)
	}
	ic := make([]float64, len(ll))
	for i, v := range ll {
		ic[i] = -2 * v
	}
	return &FitLOOValue{Model: fit.Model.Name, Elpd: estimate(ll), IC: estimate(ic), ElpdI: ll, ICI: ic,
		Values: held, Objective: field("objective"), Approx: field("approx")}, nil
}

func (l *FitLOOValue) Type() string { return "loo" }

func (l *FitLOOValue) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "LOO of model %s at the optimize fit: %d observations, conditional on the fitted values (no draws: no PSIS, Pareto k̂ does not apply)\n", l.Model, len(l.ElpdI))
	fmt.Fprintf(&b, "          %10s %8s\n", "estimate", "se")
	fmt.Fprintf(&b, "%-9s %10.1f %8.1f\n", "elpd_loo", l.Elpd.Value, l.Elpd.SE)
	fmt.Fprintf(&b, "%-9s %10.1f %8.1f", "looic", l.IC.Value, l.IC.SE)
	return b.String()
}

func (l *FitLOOValue) AttrNames() []string {
	return []string{"elpd_loo", "se_elpd_loo", "looic", "se_looic", "elpd_loo_i", "looic_i",
		"observations", "conditional", "values", "objective", "approx"}
}

func (l *FitLOOValue) Attr(name string) (eval.Value, bool) {
	switch name {
	case "elpd_loo":
		return eval.Num(l.Elpd.Value), true
	case "se_elpd_loo":
		return eval.Num(l.Elpd.SE), true
	case "looic":
		return eval.Num(l.IC.Value), true
	case "se_looic":
		return eval.Num(l.IC.SE), true
	case "elpd_loo_i":
		return vec(l.ElpdI), true
	case "looic_i":
		return vec(l.ICI), true
	case "observations":
		return eval.Num(len(l.ElpdI)), true
	case "conditional":
		return eval.Bool(true), true
	case "values":
		return l.Values, true
	case "objective":
		return eval.Str(l.Objective), true
	case "approx":
		return eval.Str(l.Approx), true
	}
	return nil, false
}

// LOO is the view loo_compare takes: elpd_loo_i at the fit.
func (l *FitLOOValue) LOO() *rloo.LOO {
	return &rloo.LOO{Elpd: l.Elpd, IC: l.IC, ElpdI: l.ElpdI, ICI: l.ICI, S: 1, N: len(l.ElpdI)}
}
