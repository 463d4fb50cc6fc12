package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// Density is the compiled model's log density for one goroutine (one chain
// or one optimiser start): it owns a tape and a thread. It satisfies
// inference.Model, the log density the sampler and the optimiser take.
type Density struct {
	c    *Compiled
	th   *eval.Thread
	tape *ad.Tape
	in   []ad.Var
	ev   Eval
	// observed holds the latent functions observed so far in this run: a
	// second observation of one would be a second, independent marginal.
	observed map[Latent]bool
	// replay and rec are the compiled program (replay.go).
	replay replayState
	rec    recording
	// status is ReplayStatus, set when replay is decided.
	status string
	// inPlace (Optimizing) verifies the replay at the caller's points;
	// verified counts those compared so far; memo remembers the last
	// points replayed (replay.go).
	inPlace  bool
	verified int
	memo     pointMemo
	// OnDerivedRow, when set (by tests), is called for every draw whose
	// derived quantities DerivedChain writes, saying whether it replayed.
	OnDerivedRow func(replayed bool)
}

// NewDensity makes a Density for th, a fork of the caller's thread.
func (c *Compiled) NewDensity(th *eval.Thread) *Density {
	return &Density{c: c, th: th, tape: ad.NewTape(), ev: Eval{c: c}}
}

// NewDensityFor makes a Density on a thread of the interpreter's own.
func (c *Compiled) NewDensityFor(in *eval.Interpreter) *Density {
	return c.NewDensity(in.NewThread(nil))
}

// Evaluations is the number of times c's densities have computed the log
// density, by a walk of the model or a replay of its recording: the work a
// fit has done (a test's view).
func (c *Compiled) Evaluations() int64 { return c.evals.Load() }

// Dim is the number of free reals.
func (d *Density) Dim() int { return d.c.dim }

// LogDensity returns the log density at the unconstrained point q and writes
// its gradient into grad.
func (d *Density) LogDensity(grad, q []float64) (float64, error) {
	return d.logDensity(q, grad)
}

// Value evaluates the log density without its gradient.
func (d *Density) Value(q []float64) (float64, error) {
	return d.logDensity(q, nil)
}

// Check evaluates the log density at q asking the observation families to
// examine the point; what they find is in the Compiled's warnings.
func (d *Density) Check(q []float64) {
	_, _ = d.run(q, nil, scoped{scope: ScopeCheck}) // only the warnings matter here
}

// Families evaluates the model at q and returns its observation families as
// they resolve there, in statement order: a posterior learns a draw's kernel
// hyperparameters from them. Their parameters live on the density's tape,
// so read them before the density is evaluated again.
func (d *Density) Families(q []float64) ([]Family, error) {
	var fc FamilyCollector
	if err := d.Run(q, &fc); err != nil {
		return nil, err
	}
	return fc.Out, nil
}

// LatentObservations evaluates the model at q and returns the observations
// of latent functions as they resolve there, in statement order (predict
// reads the kernel and the likelihood's parameters from them).
func (d *Density) LatentObservations(q []float64) ([]LatentObservation, error) {
	var lc LatentCollector
	if err := d.Run(q, &lc); err != nil {
		return nil, err
	}
	return lc.Out, nil
}

// Run walks the model once at the unconstrained point q for obs, which is
// told what the walk meets (observer.go).
func (d *Density) Run(q []float64, obs Observer) error {
	_, err := d.run(q, nil, obs)
	return err
}

// run evaluates the model at q, its gradient into grad when grad is not
// nil, telling obs what it meets; obs's scope says which statements run.
func (d *Density) run(q, grad []float64, obs Observer) (float64, error) {
	c := d.c
	c.evals.Add(1)
	scope := obs.Scope()
	d.ev.Checking = scope == ScopeCheck
	t := d.tape
	t.Reset()
	d.rec.done = false
	d.in = d.in[:0]
	for _, x := range q {
		d.in = append(d.in, t.Input(x))
	}
	env := eval.NewEnv(c.Model.Env())
	clear(d.observed)
	var terms []ad.Var
	constant := 0.0
	add := func(v eval.Value) {
		switch v := v.(type) {
		case eval.Num:
			constant += float64(v)
		case *eval.ADNum:
			terms = append(terms, v.V)
		}
	}
	th := d.th
	if d.replay == replayUndecided && !scope.valuesOnly() {
		// This walk may become the program (replay.go).
		d.rec.derived, d.rec.params = d.rec.derived[:0], d.rec.params[:0]
		obs = recorder{Observer: obs, rec: &d.rec}
	}
	for _, st := range c.Model.Decl().Body {
		switch st := st.(type) {
		case *ast.Assign:
			v, err := th.Expr(st.Value, env)
			if err != nil {
				return 0, err
			}
			env.Define(st.Name.Name, v)
			obs.Derived(st.Name.Name, v)
		case *ast.Generated:
			if scope != ScopeGenerated {
				continue
			}
			if err := d.generated(st, env, obs); err != nil {
				return 0, err
			}
		case *ast.Target:
			// target += counts with the observations (in loglik and in an
			// "ml" objective too): it is how a likelihood without a family
			// is written.
			if !scope.targets(c.Terms) {
				continue
			}
			v, err := th.Expr(st.Value, env)
			if err != nil {
				return 0, err
			}
			lp, err := targetTerm(t, v)
			if err != nil {
				return 0, ast.Errorf(st.Value.Pos(), "%v", err)
			}
			if math.IsInf(t.Peek(lp), -1) && scope.rejects() {
				return math.Inf(-1), zero(grad)
			}
			terms = append(terms, lp)
		case *ast.Tilde:
			if st.Kind == ast.Latent {
				v, err := th.Expr(st.Dist, env)
				if err != nil {
					return 0, err
				}
				if _, ok := v.(Latent); !ok {
					return 0, ast.Errorf(st.Dist.Pos(), "the right of `%s ~` must be gp(X, KERNEL), got %s", st.Name.Name, eval.Describe(v))
				}
				env.Define(st.Name.Name, v)
				continue
			}
			if st.Kind == ast.Observe {
				if !scope.observes(c.Terms) {
					continue
				}
				lp, err := d.observe(st, env, obs)
				var se *dists.SupportError
				if errors.As(err, &se) {
					if scope.rejects() {
						return math.Inf(-1), zero(grad)
					}
					return 0, ast.Errorf(st.At, "%v", se)
				}
				if err != nil {
					return 0, err
				}
				if c.Terms.Likelihood {
					add(lp)
				}
				continue
			}
			s := c.byStmt[st]
			var prior dists.Distribution
			if scope.priors(c.Terms, s.tr.NeedsPrior()) {
				var err error
				if prior, err = d.prior(st, env, s, scope == scopeFirst); err != nil {
					return 0, err
				}
			}
			var x eval.Value
			if s.fixErr != nil {
				return 0, s.fixErr
			}
			if s.off < 0 {
				x = s.fixed
				if !s.tr.Admits(x) {
					// A held value outside its prior's support.
					return math.Inf(-1), zero(grad)
				}
			} else {
				var logJ []ad.Var
				var ok bool
				if x, logJ, ok = s.tr.Record(t, d.in[s.off:s.off+s.free()], prior); !ok {
					if !scope.rejects() {
						return 0, ast.Errorf(st.Dist.Pos(), "the bounds of %s's prior %s are empty or reversed at the starting point", s.param.Name, prior)
					}
					// Bounds that cross reject the point, as an
					// observation outside its support does.
					return math.Inf(-1), zero(grad)
				}
				if c.Terms.Jacobian {
					terms = append(terms, logJ...)
				}
				obs.Param(s.param.Name, x)
			}
			env.Define(s.param.Name, x)
			if scope.priorTerms(c.Terms) {
				lp, err := prior.LogDensity(t, x, s.param.Name)
				var se *dists.SupportError
				if errors.As(err, &se) && s.off < 0 {
					// A held value outside its prior's support has density zero.
					return math.Inf(-1), zero(grad)
				}
				if err != nil {
					return 0, ast.Errorf(st.At, "%v", err)
				}
				add(lp)
			}
		}
	}
	total := constant
	var out ad.Var
	if len(terms) > 0 {
		out = t.Sum(terms)
		total += t.Peek(out)
	}
	d.rec.done, d.rec.out, d.rec.hasOut, d.rec.konst = true, out, len(terms) > 0, constant
	if grad != nil {
		if len(terms) > 0 {
			t.Gradient(grad, out, d.in)
		} else {
			clear(grad)
		}
	}
	return total, nil
}

// targetTerm is the tape node of a `target +=` value: a number, or the sum
// of a vector.
func targetTerm(t *ad.Tape, v eval.Value) (ad.Var, error) {
	var out ad.Var
	switch v := v.(type) {
	case eval.Num:
		out = t.Input(float64(v))
	case *eval.ADNum:
		out = v.V
	case *eval.Vec:
		s := 0.0
		for _, x := range v.Data {
			s += x
		}
		out = t.Input(s)
	case *eval.ADVec:
		out = t.Sum(v.Vs)
	default:
		return 0, fmt.Errorf("target += needs a number or a vector (its sum is added), got %s", eval.Describe(v))
	}
	if x := t.Peek(out); math.IsNaN(x) || math.IsInf(x, 1) {
		return 0, fmt.Errorf("target += got %v; the log density must be a number below +Inf", x)
	}
	return out, nil
}

// zero clears a gradient, if there is one, and returns nil.
func zero(grad []float64) error {
	clear(grad)
	return nil
}

// prior evaluates a parameter's prior; on the first run it also fixes the
// parameter's transform from the prior's support (dists.TransformFor).
func (d *Density) prior(st *ast.Tilde, env *eval.Env, s *slot, first bool) (dists.Distribution, error) {
	v, err := d.th.Expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	if first {
		s.probed = true
	}
	prior, ok := v.(dists.Distribution)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the prior of %s must be a distribution, got %s", s.param.Name, eval.Describe(v))
	}
	if !first {
		return prior, nil
	}
	tr, err := dists.TransformFor(prior, s.param)
	if err != nil {
		return nil, ast.Errorf(st.Dist.Pos(), "%v", err)
	}
	relayout := s.relayout(tr)
	s.tr, s.improper = tr, dists.Improper(prior)
	if relayout {
		// The parameter's free reals or held value change (a simplex, a
		// Cholesky factor): Compile lays the parameters out again.
		return nil, errRelayout
	}
	return prior, nil
}

// observe evaluates one `DATA ~ DIST` statement.
func (d *Density) observe(st *ast.Tilde, env *eval.Env, obs Observer) (eval.Value, error) {
	data, err := d.th.Expr(st.LHS, env)
	if err != nil {
		return nil, err
	}
	rhs, err := d.th.Expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	what := ast.Format(st.LHS)
	if f, ok := rhs.(Family); ok {
		obs.Family(f)
		lp, err := f.LogLik(&d.ev, data)
		if err != nil {
			var ae *ast.Error
			if errors.As(err, &ae) {
				return nil, err
			}
			return nil, ast.Errorf(st.At, "%v", err)
		}
		obs.Observed(Observation{Stmt: st, Data: data, Family: f, LogLik: lp})
		return lp, nil
	}
	r, ok := rhs.(dists.Distribution)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the right of `~` must be a distribution or an observation family, got %s", eval.Describe(rhs))
	}
	if dv, ok := r.(*dists.DistVal); ok {
		if lp, done, err := d.observeUnivariate(st, dv, data, what, obs); done {
			return lp, err
		}
		if obs.Scope() == ScopePointwise {
			// The observer takes the points' densities itself
			// (Observation.Pointwise); the statement's sum is not needed.
			obs.Observed(Observation{Stmt: st, Data: data, Dist: r})
			return eval.Num(0), nil
		}
	}
	if cl, ok := r.(*dists.CategoricalLogit); ok {
		if lat, ok := cl.Beta.(Latent); ok {
			return d.observeClasses(st, lat, data, what, obs)
		}
	}
	lp, err := r.LogDensity(d.tape, data, what)
	var se *dists.SupportError
	if errors.As(err, &se) {
		return nil, se // the caller decides: an error on the first run, −Inf later
	}
	if err != nil {
		return nil, ast.Errorf(st.At, "%v", err)
	}
	obs.Observed(Observation{Stmt: st, Data: data, Dist: r, LogLik: lp})
	return lp, nil
}

// observeClasses is `DATA ~ categorical_logit(f)` for a latent function f:
// f must have one GP per class, and it takes the observation.
func (d *Density) observeClasses(st *ast.Tilde, lat Latent, data eval.Value, what string, obs Observer) (eval.Value, error) {
	cl, ok := lat.(ClassLatent)
	if !ok || cl.Classes() == 0 {
		return nil, ast.Errorf(st.Dist.Pos(), "categorical_logit of a latent function needs one GP per class: write f ~ gp(X, KERNEL, classes: C)")
	}
	if err := d.observeOnce(st, lat, what); err != nil {
		return nil, err
	}
	obs.Latent(LatentObservation{Latent: lat, Data: data})
	lp, err := cl.ClassLogLik(&d.ev, data)
	if err != nil {
		var ae *ast.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, ast.Errorf(st.At, "%v", err)
	}
	return lp, nil
}

// observeUnivariate is what `DATA ~ DIST` checks and does for a univariate
// family before its density: an improper family is refused, a latent
// function among the parameters takes the observation (done), and a matrix
// of data must be a vector.
func (d *Density) observeUnivariate(st *ast.Tilde, r *dists.DistVal, data eval.Value, what string, obs Observer) (lp eval.Value, done bool, err error) {
	if dist.IsImproper(r.Family) {
		return nil, true, ast.Errorf(st.Dist.Pos(), "%s is an improper prior for parameters, not a distribution for data", r)
	}
	for i, p := range r.Params {
		if lat, ok := p.(Latent); ok {
			if err := d.observeOnce(st, lat, what); err != nil {
				return nil, true, err
			}
			obs.Latent(LatentObservation{Latent: lat, Lik: r, Loc: i, Data: data})
			lp, err := lat.LogLik(&d.ev, r, i, data)
			if err != nil {
				var ae *ast.Error
				if errors.As(err, &ae) {
					return nil, true, err
				}
				return nil, true, ast.Errorf(st.At, "%v", err)
			}
			return lp, true, nil
		}
	}
	if m, ok := data.(*eval.Mat); ok {
		if rr, cc := m.Dims(); cc != 1 && rr != 1 {
			return nil, true, ast.Errorf(st.LHS.Pos(), "%s is a %d×%d matrix; a univariate distribution needs a vector of observations", what, rr, cc)
		}
	}
	return nil, false, nil
}

// observeOnce notes that this run observes lat, refusing a second
// observation of it: that would be a second, independent marginal.
func (d *Density) observeOnce(st *ast.Tilde, lat Latent, what string) error {
	if d.observed[lat] {
		return ast.Errorf(st.At, "a latent function can be observed once; %s observes one a second time", what)
	}
	if d.observed == nil {
		d.observed = map[Latent]bool{}
	}
	d.observed[lat] = true
	return nil
}
