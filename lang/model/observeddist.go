package model

import (
	"fmt"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// A goodness-of-fit test of data against a model (ksd_test) needs the
// distribution the model gives its observed variable at parameter values:
// at values the user states, or at each of a posterior's draws, whose
// mixture is the posterior predictive. ObservedDists walks the model's
// statements once in order, as Forward does, with every parameter at its
// given value, and returns each observation statement's distribution as
// evaluated there — neither drawing data nor scoring them.

// ObservedDist is one `DATA ~ DIST` statement's distribution at given
// parameter values.
type ObservedDist struct {
	// Name is the observed expression as written (`y`).
	Name string
	// At is the statement's `~`.
	At   ast.Pos
	Dist dists.Distribution
}

// ObservedDists runs model m once with every parameter at its value in
// given (a record of every parameter by name, as Compiled.Record makes
// from a posterior draw) and returns each observation statement's
// distribution there, in statement order. A name in given that is not a
// parameter and a parameter without a value are errors without a
// position (the caller's); `target +=` (a term of the
// density that is not a distribution of the data), a latent GP (its
// observations are not independent given the parameters) and an
// observation family (bke: a pseudolikelihood) are errors, at the
// statement.
func ObservedDists(th *eval.Thread, m *eval.Model, given *eval.Record) ([]ObservedDist, error) {
	for _, name := range given.AttrNames() {
		if !hasParam(m, name) {
			return nil, NoParam(m, name)
		}
	}
	params := map[*ast.Tilde]eval.ModelParam{}
	for _, p := range m.Params {
		params[p.Stmt] = p
	}
	env := eval.NewEnv(m.Env())
	var out []ObservedDist
	for _, st := range m.Decl().Body {
		switch st := st.(type) {
		case *ast.Assign:
			v, err := th.Expr(st.Value, env)
			if err != nil {
				return nil, err
			}
			env.Define(st.Name.Name, v)
		case *ast.Generated:
		case *ast.Target:
			return nil, ast.Errorf(st.At, "the model has a `target +=` term, which is not a distribution of the data: write the likelihood as DATA ~ DIST")
		case *ast.Tilde:
			switch st.Kind {
			case ast.Latent:
				return nil, ast.Errorf(st.At, "%s is a latent function: its observations are not independent draws of one distribution given the parameters", st.Name.Name)
			case ast.Observe:
				rhs, err := th.Expr(st.Dist, env)
				if err != nil {
					return nil, err
				}
				what := ast.Format(st.LHS)
				if f, ok := rhs.(Family); ok {
					return nil, ast.Errorf(st.At, "%s ~ %s is an observation family, not a distribution of the data", what, f)
				}
				d, ok := rhs.(dists.Distribution)
				if !ok {
					return nil, ast.Errorf(st.Dist.Pos(), "the right of `~` must be a distribution, got %s", eval.Describe(rhs))
				}
				out = append(out, ObservedDist{Name: what, At: st.At, Dist: d})
			default:
				p := params[st]
				x, ok := given.Attr(p.Name)
				if !ok || x == nil {
					return nil, fmt.Errorf("no value of parameter %s (give every parameter: %s)", p.Name, NameList(m.ParamNames()))
				}
				env.Define(p.Name, x)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("model %s has no observations (DATA ~ DIST)", m.Name)
	}
	return out, nil
}
