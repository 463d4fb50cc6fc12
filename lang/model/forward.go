package model

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
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
// A latent GP, `f ~ gp(X, KERNEL)` observed through `y ~ LIK(f, ...)`, is
// drawn at the observation, the first place its values are needed: from
// the GP prior N(0, K_θ(X)) when the parameters were drawn from their
// priors, and from its posterior given the observed y and the draw's θ
// when they are given (exact for normal noise; for other likelihoods the
// Gaussian q(f) of the approximation the fit used). The latent's value is
// a LatentSampler's (stdlib's gp); the draws go to ForwardDraw.Latents and
// y's replicate is drawn from LIK with f in its place.
//
// What cannot be drawn is refused at its statement: `target +=` (a term
// of the density with no generative form), an observation family such as
// bke (a pseudolikelihood, not a distribution for data), a multi-class
// latent GP (classes:, whose joint posterior forward sampling does not
// draw yet), a flat() prior when priors are drawn (improper: no draws),
// and a distribution whose parameters are not numbers.

// ForwardDraw is one forward run of a model: each parameter's value and
// each observation's replicated data, in statement order.
type ForwardDraw struct {
	Params []NamedValue
	// Latents are the latent GPs' values at their inputs, by the name
	// the model gives them (f), in the order they were drawn.
	Latents []LatentDraw
	Data    []Replicate
}

// LatentDraw is a latent GP's values at its inputs in one forward run and
// what they were drawn from (LatentSampler.DrawLatent's method).
type LatentDraw struct {
	Name   string
	Value  *eval.Vec
	Method string
}

// ForwardOptions are what a forward run needs beyond the model and its
// stream; the zero value draws latent GPs from the run's stream under
// VB's q(f).
type ForwardOptions struct {
	// Latent is the stream latent GPs' values are drawn from (nil: the
	// run's own). Callers give it its own stream (rng.ForwardLatent) so
	// that a model without a latent GP draws as it always has.
	Latent *rand.Rand
	// Approx is the approximation the posterior was fitted with, whose
	// Gaussian q(f) gives a latent GP's posterior draws for non-Gaussian
	// observations (unset: VB's).
	Approx rgp.Approx
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
	return ForwardWith(th, m, rng, given, ForwardOptions{})
}

// ForwardWith is Forward with options: the stream of the latent GPs' draws
// and the approximation their posterior draws follow.
func ForwardWith(th *eval.Thread, m *eval.Model, rng *rand.Rand, given *eval.Record, opt ForwardOptions) (*ForwardDraw, error) {
	if opt.Latent == nil {
		opt.Latent = rng
	}
	fw := &forwardRun{opt: opt, posterior: given != nil, names: map[Latent]string{}, drawn: map[Latent][]float64{}, method: map[Latent]string{}}
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
				if l, ok := v.(Latent); ok {
					fw.names[l] = st.Name.Name
				}
				env.Define(st.Name.Name, v)
			case ast.Observe:
				rep, err := fw.observe(th, st, env, rng)
				if err != nil {
					return nil, err
				}
				out.Data = append(out.Data, *rep)
				for _, l := range fw.order {
					out.Latents = append(out.Latents, LatentDraw{Name: fw.names[l], Value: &eval.Vec{Data: fw.drawn[l]}, Method: fw.method[l]})
				}
				fw.order = nil
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

// forwardRun is one forward run's state for its latent GPs: their names,
// the values drawn (a latent observed twice under the prior keeps its
// draw), those drawn by the last observation, and the options.
type forwardRun struct {
	opt       ForwardOptions
	posterior bool
	names     map[Latent]string
	drawn     map[Latent][]float64
	method    map[Latent]string
	order     []Latent
}

// observe draws one observation statement's replicated data.
func (fw *forwardRun) observe(th *eval.Thread, st *ast.Tilde, env *eval.Env, rng *rand.Rand) (*Replicate, error) {
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
	if cl, ok := d.(*dists.CategoricalLogit); ok && cl.OfLatent {
		return nil, refuse("it observes a multi-class latent GP (classes:), whose draws forward sampling does not make in this version")
	}
	if dv, ok := d.(*dists.DistVal); ok {
		if d, err = fw.latentDraw(st, dv, data, refuse); err != nil {
			return nil, err
		}
	}
	x, err := dists.Replicate(d, rng, data)
	if err != nil {
		return nil, refuse("%v", err)
	}
	if dv, ok := d.(*dists.DistVal); ok && dv.Family.Name() == "bernoulli_logit" {
		x = signCoded(x, data)
	}
	return &Replicate{Name: what, At: st.At, Observed: data, Value: x}, nil
}

// latentDraw replaces a latent GP among lik's parameters by its values at
// the inputs, drawn from its prior or its posterior given data; lik
// itself when it has none.
func (fw *forwardRun) latentDraw(st *ast.Tilde, lik *dists.DistVal, data eval.Value, refuse func(string, ...any) error) (*dists.DistVal, error) {
	out := lik
	for i, p := range lik.Params {
		l, ok := p.(Latent)
		if !ok {
			continue
		}
		ls, ok := l.(LatentSampler)
		if !ok {
			return nil, refuse("it observes %s, which has no forward draws", eval.Describe(l))
		}
		f, seen := fw.drawn[l]
		if seen && fw.posterior {
			return nil, refuse("the latent GP %s is observed twice; its posterior draw needs all of its data in one statement", fw.names[l])
		}
		if !seen {
			var given eval.Value
			if fw.posterior {
				given = data
			}
			var err error
			var how string
			if f, how, err = ls.DrawLatent(fw.opt.Latent, lik, i, given, fw.opt.Approx); err != nil {
				return nil, refuse("%v", err)
			}
			fw.drawn[l], fw.method[l] = f, how
			fw.order = append(fw.order, l)
		}
		if out == lik {
			cp := *lik
			cp.Params = append([]eval.Value(nil), lik.Params...)
			out = &cp
		}
		out.Params[i] = &eval.Vec{Data: f}
	}
	return out, nil
}

// signCoded codes bernoulli_logit's replicated 0/1 labels as −1/1 when the
// observed labels are so coded (a latent GP takes either).
func signCoded(x, data eval.Value) eval.Value {
	obs, _, _ := dists.Numbers(data)
	if !slices.Contains(obs, -1) {
		return x
	}
	switch x := x.(type) {
	case eval.Num:
		if x == 0 {
			return eval.Num(-1)
		}
	case *eval.Vec:
		out := make([]float64, len(x.Data))
		for i, v := range x.Data {
			out[i] = 2*v - 1
		}
		return &eval.Vec{Data: out}
	}
	return x
}
