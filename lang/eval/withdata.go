package eval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
)

// WithData is model m with the variables named in data bound to new
// values: the one way to refit a model to other data (simulation-based
// calibration fits each simulated data set). The new model's scope is
// m's with the names shadowed, so the statements see the new values
// wherever they use them, as calling a model family with new data binds
// its arguments in a scope of their own (instantiate): for an instance of
// a family the shadowed names are its arguments and this is that call;
// for `model m { ... }` it is the generalisation, the data it took from
// its scope replaced. Vector parameters' sizes are fixed again from the
// new data. A name the model assigns itself (`y = ...`) cannot be
// replaced from outside and is refused.
func (th *Thread) WithData(m *Model, data map[string]Value) (*Model, error) {
	assigned := map[string]bool{}
	for _, s := range m.decl.Body {
		if a, ok := s.(*ast.Assign); ok {
			assigned[a.Name.Name] = true
		}
	}
	names := make([]string, 0, len(data))
	for name := range data {
		names = append(names, name)
	}
	sort.Strings(names)
	env := NewEnv(m.env)
	for _, name := range names {
		if assigned[name] {
			return nil, fmt.Errorf("model %s computes %s itself, so it cannot be given other data for it", m.Name, name)
		}
		env.Define(name, data[name])
	}
	nm, err := th.makeModel(m.decl, env)
	if err != nil {
		return nil, m.BlameData(err)
	}
	nm.Family, nm.args = m.Family, m.args
	if m.Family != nil {
		shapes := make([]string, 0, len(m.args))
		for _, a := range m.args {
			v, _ := env.Lookup(a.name)
			shapes = append(shapes, a.name+": "+shapeOf(v))
		}
		for _, p := range nm.Params {
			if p.Size > 0 {
				shapes = append(shapes, fmt.Sprintf("%s[%d]", p.Name, p.Size))
			}
		}
		nm.Shapes = strings.Join(shapes, ", ")
	}
	return nm, nil
}
