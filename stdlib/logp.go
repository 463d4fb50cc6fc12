package stdlib

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

func init() {
	eval.Register("logp(m, values)",
		"The log density of model m at the parameter values given as a record on the constrained scale, e.g. logp(m, {ell: 0.5}): priors plus observations, without the transforms' Jacobians.",
		func(a *eval.Args) (eval.Value, error) {
			return logDensityAt(a, model.Terms{Prior: true, Likelihood: true})
		})
	eval.Register("loglik(m, values)",
		"The observation terms alone of model m's log density at the parameter values given as a record: the log (pseudo)likelihood.",
		func(a *eval.Args) (eval.Value, error) {
			return logDensityAt(a, model.Terms{Likelihood: true})
		})
}

// modelArg unpacks "a model".
type modelArg struct{ *eval.Model }

func (m *modelArg) UnpackArg(name string, v eval.Value) error {
	mv, ok := v.(*eval.Model)
	if !ok {
		return fmt.Errorf("%s must be a model, got %s", name, eval.Describe(v))
	}
	m.Model = mv
	return nil
}

// posteriorArg unpacks "a posterior from sample".
type posteriorArg struct{ *model.Posterior }

func (p *posteriorArg) UnpackArg(name string, v eval.Value) error {
	pv, ok := v.(*model.Posterior)
	if !ok {
		return fmt.Errorf("%s must be a posterior from sample, got %s", name, eval.Describe(v))
	}
	p.Posterior = pv
	return nil
}

// recordValues reads a record of parameter values into a map.
func recordValues(a *eval.Args, name string) (map[string]eval.Value, error) {
	r, err := a.Record(name)
	if err != nil {
		return nil, err
	}
	out := map[string]eval.Value{}
	for _, k := range r.AttrNames() {
		v, _ := r.Attr(k)
		out[k] = v
	}
	return out, nil
}

func logDensityAt(a *eval.Args, terms model.Terms) (eval.Value, error) {
	var m modelArg
	if err := a.Unpack("m", &m); err != nil {
		return nil, err
	}
	values, err := recordValues(a, "values")
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, p := range m.Params {
		if _, ok := values[p.Name]; !ok {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) > 0 {
		return nil, a.Errorf("values", "give a value for every parameter of %s; missing %s", m.Name, strings.Join(missing, ", "))
	}
	c, err := model.Compile(a.Th, a.PosOf("values"), m.Model, values, terms)
	if err != nil {
		return nil, err
	}
	lp, err := c.NewDensity(a.Th.Fork()).Value(nil)
	if err != nil {
		return nil, err
	}
	return eval.Num(lp), nil
}
