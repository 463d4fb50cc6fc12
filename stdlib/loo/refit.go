package loo

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
	"gonum.org/v1/gonum/mat"
)

// Refitting on part of the data. kfold and loo(post, reloo: true) both
// refit a model that takes data, `model m(x, y)`, on the data without some
// of its observed points and score the points left out at the refit's
// draws, log(1/S Σ_s p(y_i | θ_s)): kfold a fold at a time, reloo a point
// at a time. The points are rows of the data arguments (splitArgs); each
// fit is the family called on the training rows, each score the family
// called on the held-out rows (infer.HeldOutLogLik).

// refitter refits one model on subsets of its rows with NUTS.
type refitter struct {
	a     *eval.Args
	who   string // the builtin, for messages: "kfold", "loo"
	arg   string // the argument holding the model: "m", "post"
	m     *eval.Model
	fam   *eval.ModelFamily
	data  []eval.Value // the family's arguments, in order
	split []string
	terms model.Terms
	s     hmc.Settings
	// gp, when set, is the model on all the data, a GP model whose
	// held-out points heldOut scores by the GP's predictive given the
	// training rows (infer.HeldOutPredictive), not as a model of their own.
	gp *model.Compiled
}

// takesData refuses a model without data arguments, at arg: it cannot be
// refitted on part of its data.
func takesData(a *eval.Args, arg string, m *eval.Model) error {
	if m.Family != nil {
		return nil
	}
	return a.Errorf(arg, "model %s takes no data arguments, so it cannot be refitted on part of its data: declare it with them, model %s(x, y) { ... }, and call it with its data, %s(x: x, y: y)", m.Name, m.Name, m.Name)
}

// newRefitter is the refitter of m, whose n observed points are split
// along the rows of its data arguments (split: when given), fitted with
// the sampler settings s from pathfinder's initial points.
func newRefitter(a *eval.Args, who, arg string, m *eval.Model, n int, s hmc.Settings, terms model.Terms) (*refitter, error) {
	fam := m.Family
	data := make([]eval.Value, len(fam.Decl().Params))
	for i, p := range fam.Decl().Params {
		data[i], _ = m.Env().Lookup(p.Name)
	}
	split, err := splitArgs(a, arg, fam, data, n)
	if err != nil {
		return nil, err
	}
	s.Init = hmc.InitPathfinder
	return &refitter{a: a, who: who, arg: arg, m: m, fam: fam, data: data, split: split, terms: terms, s: s}, nil
}

// warn passes a fit's warnings on, each with prefix.
func (r *refitter) warn(prefix string, post *infer.Posterior) {
	for _, w := range post.Summary.Warnings {
		r.a.Th.Interp().Warn(r.a.Pos, prefix+w)
	}
}

// fit samples c with the refitter's settings and seed.
func (r *refitter) fit(c *model.Compiled, seed uint64, what string) (*infer.Posterior, error) {
	s := r.s
	s.Seed = seed
	if err := infer.CheckDraws(r.a, c, s.Chains, s.Draws); err != nil {
		return nil, err
	}
	post, err := infer.Sample(r.a.Context(), r.a.Th, c, s)
	if err != nil {
		return nil, fitFailed(r.a, err, what)
	}
	r.warn(what+": ", post)
	return post, nil
}

// heldOut fits ctrain (an instance on the training rows) with seed and
// returns the log predictive density log(1/S Σ_s p(y_i | θ_s)) of each
// point of test at its draws.
func (r *refitter) heldOut(ctrain *model.Compiled, test []int, seed uint64, what string) ([]float64, error) {
	post, err := r.fit(ctrain, seed, what)
	if err != nil {
		return nil, err
	}
	var ll [][]float64
	if r.gp != nil {
		ll, err = infer.HeldOutPredictive(r.a.Context(), r.a.Th, post, r.gp, test, false)
	} else {
		var ctest *model.Compiled
		if ctest, err = r.instance(test, what+" (held-out rows)"); err != nil {
			return nil, err
		}
		ll, err = infer.HeldOutLogLik(r.a.Context(), r.a.Th, post, ctest)
	}
	if err != nil {
		return nil, refusal(r.a, r.arg, err)
	}
	if len(ll) != len(test) {
		return nil, r.a.Errorf(r.arg, "%s: the held-out rows make %d observed points, not the %d held out: split %s does not split the observations point by point; name the arguments to split with split:", what, len(ll), len(test), joinNames(r.split))
	}
	out := make([]float64, len(test))
	for j := range test {
		out[j] = logMeanExp(ll[j])
	}
	return out, nil
}

// splitArgs are the names of the data arguments split into folds: those
// named by split:, or else every vector of length n and matrix of n rows.
// A square n×n matrix (a kernel or distance matrix, whose rows and columns
// are both points) and a number equal to n (a count of the points) make
// the choice ambiguous, and are refused naming the argument.
func splitArgs(a *eval.Args, arg string, fam *eval.ModelFamily, data []eval.Value, n int) ([]string, error) {
	params := fam.Decl().Params
	rowsOf := func(v eval.Value) (int, bool) {
		switch v := v.(type) {
		case *eval.Vec:
			return len(v.Data), true
		case *eval.Mat:
			r, _ := v.Dims()
			return r, true
		}
		return 0, false
	}
	if sv := a.Value("split"); sv != nil {
		l, ok := sv.(*eval.List)
		var names []string
		if ok {
			for _, e := range l.Elems {
				s, isStr := e.(eval.Str)
				if !isStr {
					ok = false
					break
				}
				names = append(names, string(s))
			}
		}
		if !ok || len(names) == 0 {
			return nil, a.Errorf("split", "split must be a list of data argument names, as [\"x\", \"y\"], got %s", eval.Describe(sv))
		}
		for _, name := range names {
			i := -1
			for j, p := range params {
				if p.Name == name {
					i = j
				}
			}
			if i < 0 {
				return nil, a.Errorf("split", "model %s has no data argument %q; it has %s", fam.Name, name, fam.Signature())
			}
			if r, ok := rowsOf(data[i]); !ok || r != n {
				return nil, a.Errorf("split", "%s is %s, and the model has %d observed points: an argument split into folds must be a vector of length %d or a matrix of %d rows", name, eval.Describe(data[i]), n, n, n)
			}
		}
		return names, nil
	}
	var names []string
	for i, p := range params {
		switch v := data[i].(type) {
		case eval.Num:
			if float64(v) == float64(n) {
				return nil, a.Errorf(arg, "data argument %s is %d, the number of observed points: if it counts them it would be wrong for each fold; compute it in the model from the data, or say which arguments to split, split: [...]", p.Name, n)
			}
		case *eval.Mat:
			if r, c := v.Dims(); r == n && c == n {
				return nil, a.Errorf(arg, "data argument %s is a %d×%d matrix, as many rows as columns as observed points (a kernel or distance matrix?): its rows alone cannot be split; say which arguments to split, split: [...]", p.Name, n, n)
			}
		}
		if r, ok := rowsOf(data[i]); ok && r == n {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return nil, a.Errorf(arg, "model %s has %d observed points, but no data argument is a vector of length %d or a matrix of %d rows to split into folds", fam.Name, n, n, n)
	}
	return names, nil
}

// instance compiles the family on the rows idx of the split arguments.
func (r *refitter) instance(idx []int, what string) (*model.Compiled, error) {
	a := r.a
	args := make([]eval.Value, len(r.data))
	for i, p := range r.fam.Decl().Params {
		args[i] = r.data[i]
		for _, name := range r.split {
			if name == p.Name {
				args[i] = rows(r.data[i], idx)
			}
		}
	}
	mv, err := a.Th.CallValue(a.Pos, r.fam, args...)
	if err == nil {
		m, ok := mv.(*eval.Model)
		if !ok {
			return nil, a.Fail("%s: calling %s did not make a model", what, r.fam.Name)
		}
		for i, p := range m.Params {
			if full := r.m.Params[i]; p.Size != full.Size {
				return nil, a.Errorf(r.arg, "%s: parameter %s has %d elements with all the data and %d with these rows: its size follows the data split into folds, so its elements belong to points, and the training fit has none for the held-out points (%s cannot score a model with a parameter per point)", what, p.Name, full.Size, p.Size, r.who)
			}
		}
		var c *model.Compiled
		if c, err = model.Compile(a.Th, a.Pos, m, nil, r.terms); err == nil {
			return c, nil
		}
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		e := *ae
		e.Pos, e.Msg = a.PosOf(r.arg), fmt.Sprintf("%s: %s: %s", r.who, what, ae.Msg)
		e.Notes = append([]string{fmt.Sprintf("at %s", ae.Pos)}, ae.Notes...)
		return nil, &e
	}
	return nil, a.Errorf(r.arg, "%s: %v", what, err)
}

// joinNames is names separated by commas.
func joinNames(names []string) string { return strings.Join(names, ", ") }

// rows is the rows idx of a vector or a matrix.
func rows(v eval.Value, idx []int) eval.Value {
	switch v := v.(type) {
	case *eval.Vec:
		out := make([]float64, len(idx))
		for j, i := range idx {
			out[j] = v.Data[i]
		}
		return &eval.Vec{Data: out}
	case *eval.Mat:
		_, c := v.Dims()
		out := mat.NewDense(len(idx), c, nil)
		for j, i := range idx {
			out.SetRow(j, v.M.RawRowView(i))
		}
		return eval.NewMat(out)
	}
	return v
}

// refusal is an error of the pointwise log likelihood: as it is when it
// names its statement, else at the argument arg.
func refusal(a *eval.Args, arg string, err error) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		return err
	}
	return a.Errorf(arg, "%v", err)
}

// fitFailed is a refit's sampling error, "interrupted" when cancelled.
func fitFailed(a *eval.Args, err error, what string) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		return err
	}
	return a.Fail("%s: %v", what, err)
}

// logMeanExp is log(1/S Σ exp(x_s)), computed stably.
func logMeanExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum/float64(len(x)))
}
