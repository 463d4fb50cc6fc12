package infer

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
)

// The model argument kinds of builtins: a model, a posterior, a record of
// parameter values. Every library domain that takes a model or a posterior
// unpacks it with these.

// ModelArg unpacks "a model".
type ModelArg struct{ *eval.Model }

func (m *ModelArg) UnpackArg(name string, v eval.Value) error {
	mv, ok := v.(*eval.Model)
	if f, fam := v.(*eval.ModelFamily); fam {
		return fmt.Errorf("model %s takes data: call it with its data, %s", f.Signature(), f.CallHint())
	}
	if !ok {
		return fmt.Errorf("%s must be a model, got %s", name, eval.Describe(v))
	}
	m.Model = mv
	return nil
}

// PosteriorArg unpacks "a posterior from sample".
type PosteriorArg struct{ *Posterior }

func (p *PosteriorArg) UnpackArg(name string, v eval.Value) error {
	pv, ok := v.(*Posterior)
	if !ok {
		return fmt.Errorf("%s must be a posterior from sample, got %s", name, eval.Describe(v))
	}
	p.Posterior = pv
	return nil
}

// RecordValues reads a record of parameter values into a map.
func RecordValues(a *eval.Args, name string) (map[string]eval.Value, error) {
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
