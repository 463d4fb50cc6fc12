package model

import (
	"fmt"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// Forward (ancestral) sampling walks the model's statements once in order,
// as Density.run does, but draws where the density evaluates: each
// parameter's value from its prior (given the parameters drawn before it),
// then each observation's replicated data from its distribution given the
// parameters. With the parameters given instead (a posterior draw), the
// same walk draws the posterior predictive's replicate for that draw. It is
// a walk of its own rather than an Observer of Density.run: it has no
// unconstrained point, no tape and no transforms, and its values are plain
// numbers, so every distribution it meets can draw (dists.DrawParam,
// dists.Replicate).
//
// What cannot be drawn is refused at its statement: `target +=` (a term
// of the density with no generative form), an observation family such as
// bke (a pseudolikelihood, not a distribution for data), an observation of
// a latent GP (f ~ gp(...) has no forward draw here: drawing f at the inputs
// needs the GP's own sampler, so prior_predictive, ppc and sbc refuse it
// with that reason, docs/language.md "Predictive checks"), a flat() prior
// when priors are drawn (improper: no draws), and a distribution whose
// parameters are not numbers.

// ForwardDraw is one forward run of a model: each parameter's value and
// each observation's replicated data, in statement order.
type ForwardDraw struct {
	Params []NamedValue
	Data   []Replicate
}

// NamedValue is a parameter's value in one forward run.
type NamedValue struct {
	Name  string
	Value eval.Value
}

// Replicate is one observation statement's replicated data beside the
// observed data it replicates.
type Replicate struct {
	// Name is the observed expression as written (`y`, `y[1:10]`).
	Name string
	// At is the statement's `~`.
	At              ast.Pos
	Observed, Value eval.Value
}

// Forward runs model m once on thread th, drawing with rng. With given nil
// every parameter is drawn from its prior (the prior predictive); else each
// parameter takes its value from given (a record of every parameter by
// name, as Compiled.Record makes from a posterior draw) and only the
// observations are drawn (the posterior predictive). An error names the
// statement that cannot be drawn, FILE:LINE:COL at its `~` or `+=`.
func Forward(th *eval.Thread, m *eval.Model, rng *rand.Rand, given *eval.Record) (*ForwardDraw, error) {
	params := map[*ast.Tilde]eval.ModelParam{}
	for _, p := range m.Params {
		params[p.Stmt] = p
	}
	env := eval.NewEnv(m.Env())
	out := &ForwardDraw{}
	for _, st := range m.Decl().Body {
		switch st := st.(type) {
		case *ast.Assign:
			v, err := th.Expr(st.Value, env)
			if err != nil {
				return nil, err
			}
			env.Define(st.Name.Name, v)
		case *ast.Generated:
			// Quantities of a draw, not part of the generative model.
		case *ast.Target:
			return nil, ast.Errorf(st.At, "cannot draw from a model with `target +=`: the term has no generative form (write the likelihood with ~ and a distribution)")
		case *ast.Tilde:
			switch st.Kind {
			case ast.Latent:
				v, err := th.Expr(st.Dist, env)
				if err != nil {
					return nil, err
				}
				env.Define(st.Name.Name, v)
			case ast.Observe:
				rep, err := forwardObserve(th, st, env, rng)
				if err != nil {
					return nil, err
				}
				out.Data = append(out.Data, *rep)
			default:
				p := params[st]
				x, err := forwardParam(th, st, env, rng, p, given)
				if err != nil {
					return nil, err
				}
				env.Define(p.Name, x)
				out.Params = append(out.Params, NamedValue{Name: p.Name, Value: x})
			}
		}
	}
	return out, nil
}

// forwardParam is a parameter's value: given, or drawn from its prior.
func forwardParam(th *eval.Thread, st *ast.Tilde, env *eval.Env, rng *rand.Rand, p eval.ModelParam, given *eval.Record) (eval.Value, error) {
	if given != nil {
		x, ok := given.Attr(p.Name)
		if !ok || x == nil {
			return nil, ast.Errorf(st.At, "no value of parameter %s to draw the data from", p.Name)
		}
		return x, nil
	}
	v, err := th.Expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	prior, ok := v.(dists.Distribution)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the prior of %s must be a distribution, got %s", p.Name, eval.Describe(v))
	}
	x, err := dists.DrawParam(prior, rng, p)
	if err != nil {
		return nil, ast.Errorf(st.At, "cannot draw %s from its prior: %v", p.Name, err)
	}
	return x, nil
}

// forwardObserve draws one observation statement's replicated data.
func forwardObserve(th *eval.Thread, st *ast.Tilde, env *eval.Env, rng *rand.Rand) (*Replicate, error) {
	data, err := th.Expr(st.LHS, env)
	if err != nil {
		return nil, err
	}
	rhs, err := th.Expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	what := ast.Format(st.LHS)
	refuse := func(format string, args ...any) error {
		return ast.Errorf(st.At, "cannot draw %s: %s", what, fmt.Sprintf(format, args...))
	}
	if f, ok := rhs.(Family); ok {
		return nil, refuse("%s is an observation family with no draws (bke is a pseudolikelihood, not a distribution for data)", f)
	}
	d, ok := rhs.(dists.Distribution)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the right of `~` must be a distribution or an observation family, got %s", eval.Describe(rhs))
	}
	if dv, ok := d.(*dists.DistVal); ok {
		for _, p := range dv.Params {
			if _, ok := p.(Latent); ok {
				return nil, refuse("it observes a latent GP, whose draws at the inputs forward sampling does not make")
			}
		}
	}
	if cl, ok := d.(*dists.CategoricalLogit); ok && cl.OfLatent {
		return nil, refuse("it observes a latent GP, whose draws at the inputs forward sampling does not make")
	}
	x, err := dists.Replicate(d, rng, data)
	if err != nil {
		return nil, refuse("%v", err)
	}
	return &Replicate{Name: what, At: st.At, Observed: data, Value: x}, nil
}
