package ktest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
)

// ksd_test's targets that are models: a model at parameter values the
// user states (at:), whose observed variable's distribution there is the
// target, and a posterior from sample, whose target is the posterior
// predictive (1/S) Σ_s p(x | θ_s) over S of its draws. The predictive's
// score is
//
//	∇ₓ log (1/S) Σ_s p(x | θ_s) = Σ_s w_s(x) ∇ₓ log p(x | θ_s),
//	w_s(x) = p(x | θ_s) / Σ_t p(x | θ_t),
//
// the draws' scores weighted by the softmax of their log densities at x
// (computed from the largest, so no density underflows).

// modelTarget is a model target's scores at the rows of x and how the
// record describes it.
type modelTarget struct {
	score    *mat.Dense
	label    string
	observed string
	draws    int // the posterior draws used; 0 at given values
	total    int // the posterior's draws
}

// ModelAtValues returns the distribution model m gives its observed
// variable (the observation statement of the expression observed, or the
// only one when observed is "") with every parameter at its value in at.
func ModelAtValues(th *eval.Thread, m *eval.Model, at *eval.Record, observed string) (dists.Distribution, string, error) {
	obs, err := model.ObservedDists(th, m, at)
	if err != nil {
		return nil, "", err
	}
	o, err := pickObserved(m.Name, obs, observed)
	if err != nil {
		return nil, "", err
	}
	return o.Dist, o.Name, nil
}

// pickObserved is the observation statement of the expression name, or
// the only one when name is "".
func pickObserved(mname string, obs []model.ObservedDist, name string) (model.ObservedDist, error) {
	var names []string
	for _, o := range obs {
		if o.Name == name || (name == "" && len(obs) == 1) {
			return o, nil
		}
		names = append(names, o.Name)
	}
	if name == "" {
		return model.ObservedDist{}, fmt.Errorf("model %s observes %s: say which with observed:", mname, strings.Join(names, ", "))
	}
	return model.ObservedDist{}, fmt.Errorf("model %s does not observe %q; it observes %s", mname, name, strings.Join(names, ", "))
}

// iidDist checks that d, a model's distribution of its observed variable,
// is one distribution for every row: a univariate distribution with
// numbers as parameters, or multi_normal.
func iidDist(d dists.Distribution, observed string) error {
	if dv, ok := d.(*dists.DistVal); ok {
		if _, ok := dv.Scalar(); !ok {
			return fmt.Errorf("the model's distribution of %s, %s, has parameters that are not numbers (they vary by observation, as a regression's do): ksd_test tests i.i.d. draws of one distribution", observed, dv)
		}
	}
	return nil
}

// PredictiveScores returns the score of the posterior predictive
// (1/S) Σ_s p(x | θ_s) at the rows of x, over the S = len(dsts)
// distributions of the draws: Σ_s w_s(x) ∇ₓ log p(x | θ_s) with softmax
// weights w_s(x) ∝ p(x | θ_s).
func PredictiveScores(dsts []dists.Distribution, x *mat.Dense) (*mat.Dense, error) {
	n, d := x.Dims()
	S := len(dsts)
	lps := make([][]float64, S)
	scores := make([]*mat.Dense, S)
	for s, dist := range dsts {
		sc, err := TargetScores(dist, x)
		if err != nil {
			return nil, err
		}
		lp, err := targetLogDensities(dist, x)
		if err != nil {
			return nil, err
		}
		lps[s], scores[s] = lp, sc
	}
	out := mat.NewDense(n, d, nil)
	w := make([]float64, S)
	for i := 0; i < n; i++ {
		top := math.Inf(-1)
		for s := range S {
			top = max(top, lps[s][i])
		}
		if math.IsInf(top, -1) {
			return nil, fmt.Errorf("row %d of x has density zero under every draw", i+1)
		}
		tot := 0.0
		for s := range S {
			w[s] = math.Exp(lps[s][i] - top)
			tot += w[s]
		}
		row := out.RawRowView(i)
		for s := range S {
			for c, g := range scores[s].RawRowView(i) {
				row[c] += w[s] / tot * g
			}
		}
	}
	return out, nil
}

// targetLogDensities is log p(x_i) at each row of x for a distribution
// TargetScores accepts.
func targetLogDensities(p dists.Distribution, x *mat.Dense) ([]float64, error) {
	n, d := x.Dims()
	out := make([]float64, n)
	for i := range n {
		var xv eval.Value = eval.Num(x.At(i, 0))
		if _, ok := p.(*dists.MultiNormal); ok || d > 1 {
			xv = &eval.Vec{Data: mat.Row(nil, i, x)}
		}
		v, err := p.LogDensity(nil, xv, "x")
		if err != nil {
			return nil, err
		}
		f, ok := eval.ToFloat(v)
		if !ok {
			return nil, fmt.Errorf("the log density of %s is not a number", p)
		}
		out[i] = f
	}
	return out, nil
}

// modelTargetScores reads a model target of ksd_test: a model with at:
// (its observed variable's distribution there), or a posterior (its
// predictive over draws evenly spaced draws). ok is false when target is
// neither.
func modelTargetScores(a *eval.Args, target eval.Value, x *mat.Dense) (mt modelTarget, ok bool, err error) {
	var observed string
	if a.Given("observed") {
		if observed, err = a.Str("observed"); err != nil {
			return mt, true, err
		}
	}
	switch t := target.(type) {
	case *eval.ModelFamily:
		return mt, true, a.Errorf("target", "model %s takes data: call it with its data, %s (only its distribution of the observed variable enters the test)", t.Signature(), t.CallHint())
	case *eval.Model:
		if !a.Given("at") {
			return mt, true, a.Errorf("target", "a model is tested at parameter values: give them with at: {%s} (or test a posterior from sample, whose predictive is the target)", strings.Join(paramHints(t), ", "))
		}
		at, err := a.Record("at")
		if err != nil {
			return mt, true, err
		}
		dist, name, err := ModelAtValues(a.Th.Fork(), t, at, observed)
		if err != nil {
			return mt, true, modelError(a, "at", err)
		}
		if err := iidDist(dist, name); err != nil {
			return mt, true, a.Errorf("target", "%v", err)
		}
		sc, err := TargetScores(dist, x)
		if err != nil {
			return mt, true, a.Errorf("target", "%v", err)
		}
		return modelTarget{score: sc, observed: name, label: fmt.Sprintf("model %s at %s: %s ~ %s", t.Name, at, name, dist)}, true, nil
	case *infer.Posterior:
		if a.Given("at") {
			return mt, true, a.Errorf("at", "at: is for a model; a posterior's target is its predictive over its draws")
		}
		var rows [][]float64
		for _, ch := range t.Values {
			rows = append(rows, ch...)
		}
		if len(rows) == 0 {
			return mt, true, a.Errorf("target", "the posterior has no draws")
		}
		S, err := a.IntIn("draws", 1, eval.MaxLength)
		if err != nil {
			return mt, true, err
		}
		S = min(S, len(rows))
		cols := t.Comp.Columns()
		dsts := make([]dists.Distribution, S)
		name := ""
		th := a.Th.Fork()
		for s := range S {
			if err := a.Context().Err(); err != nil {
				return mt, true, a.Interrupted(err)
			}
			row := rows[s*len(rows)/S]
			dist, nm, err := ModelAtValues(th, t.Model, t.Comp.Record(row[:cols]), observed)
			if err != nil {
				return mt, true, modelError(a, "target", err)
			}
			if err := iidDist(dist, nm); err != nil {
				return mt, true, a.Errorf("target", "%v", err)
			}
			dsts[s], name = dist, nm
		}
		sc, err := PredictiveScores(dsts, x)
		if err != nil {
			return mt, true, a.Errorf("target", "%v", err)
		}
		return modelTarget{score: sc, observed: name, draws: S, total: len(rows),
			label: fmt.Sprintf("posterior predictive of model %s (%s, %d of %d draws)", t.Model.Name, name, S, len(rows))}, true, nil
	}
	if a.Given("at") {
		return mt, true, a.Errorf("at", "at: gives a model's parameter values; the target %s is not a model", eval.Describe(target))
	}
	return mt, false, nil
}

// modelError is an error of the model's run: where it happened in the
// model, noting the call, or at the argument arg when it has no place.
func modelError(a *eval.Args, arg string, err error) error {
	var ae *ast.Error
	if errors.As(err, &ae) {
		if errors.Is(err, context.Canceled) {
			return a.Interrupted(err)
		}
		e := *ae
		e.Notes = append(slices.Clip(e.Notes), fmt.Sprintf("in the model's run for ksd_test at %s", a.Pos))
		return &e
	}
	return a.Errorf(arg, "%v", err)
}

// paramHints are "name: ..." for each of m's parameters.
func paramHints(m *eval.Model) []string {
	var out []string
	for _, n := range m.ParamNames() {
		out = append(out, n+": ...")
	}
	return out
}
