package fit

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
)

func registerLogp(reg *eval.Registry) {
	reg.Register("logp(m, values)",
		"The log density of model m at the parameter values given as a record on the constrained scale, e.g. logp(m, {ell: 0.5}): priors plus observations, without the transforms' Jacobians.",
		func(a *eval.Args) (eval.Value, error) {
			return logDensityAt(a, model.Terms{Prior: true, Likelihood: true})
		})
	reg.Register(`loglik(m, values, approx = "vb")`,
		`The observation terms alone of model m's log density at the parameter values given as a record: the log (pseudo)likelihood. For a model with a latent GP, the log marginal likelihood with the latent function integrated out: exact for normal observations, otherwise approx: "vb" (the variational lower bound), "laplace" (Laplace's approximation) or "ep" (expectation propagation). values: {} when the model has no parameters.`,
		func(a *eval.Args) (eval.Value, error) {
			approx, err := model.LatentApprox(a)
			if err != nil {
				return nil, err
			}
			return logDensityAt(a, model.Terms{Likelihood: true, Latent: model.Objective{Name: model.ObjMLM, Approx: approx}})
		})
}

func logDensityAt(a *eval.Args, terms model.Terms) (eval.Value, error) {
	var m infer.ModelArg
	if err := a.Unpack("m", &m); err != nil {
		return nil, err
	}
	values, err := infer.RecordValues(a, "values")
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
		return nil, a.Errorf("values", "give a value for every parameter of %s; missing %s", m.Name, model.NameList(missing))
	}
	c, err := model.Compile(a.Th, a.PosOf("values"), m.Model, values, terms)
	if err != nil {
		return nil, err
	}
	if lp, ok := c.Held(); ok {
		return eval.Num(lp), nil // every parameter given: Compile ran the model there
	}
	lp, err := c.NewDensity(a.Th.Fork()).Value(nil)
	if err != nil {
		return nil, err
	}
	return eval.Num(lp), nil
}
