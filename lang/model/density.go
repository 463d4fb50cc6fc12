package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
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
				var se *SupportError
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
			var prior Distribution
			if scope.priors(c.Terms, s.moving) {
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
				if s.ordered && !increasing(x) {
					// A held value outside an ordered prior's support.
					return math.Inf(-1), zero(grad)
				}
			} else {
				var logJ []ad.Var
				if s.moving {
					var ok bool
					if x, logJ, ok = d.constrainedMoving(s, prior.(*DistVal)); !ok {
						if !scope.rejects() {
							return 0, ast.Errorf(st.Dist.Pos(), "the bounds of %s's prior %s are empty or reversed at the starting point", s.param.Name, prior)
						}
						// Bounds that cross reject the point, as an
						// observation outside its support does.
						return math.Inf(-1), zero(grad)
					}
				} else {
					x, logJ = d.constrained(s)
				}
				if c.Terms.Jacobian {
					terms = append(terms, logJ...)
				}
				obs.Param(s.param.Name, x)
			}
			env.Define(s.param.Name, x)
			if scope.priorTerms(c.Terms) {
				lp, err := prior.LogDensity(t, x, s.param.Name)
				var se *SupportError
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

// prior evaluates a parameter's prior; on the first run it also checks it
// and fixes the parameter's transform from the support.
func (d *Density) prior(st *ast.Tilde, env *eval.Env, s *slot, first bool) (Distribution, error) {
	v, err := d.th.Expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	if first {
		s.probed = true
	}
	if cp, ok := v.(constrainedPrior); ok {
		if first {
			vt, err := cp.transformFor(s.param)
			if err != nil {
				return nil, ast.Errorf(st.Dist.Pos(), "%v", err)
			}
			s.tr = transform{lo: math.Inf(-1), hi: math.Inf(1)}
			if s.vt != vt {
				s.vt = vt
				return nil, errRelayout
			}
		}
		return cp, nil
	}
	if mv, ok := v.(*MultiNormal); ok {
		if first {
			if s.param.Size != mv.Dim() {
				return nil, ast.Errorf(st.Dist.Pos(), "%s is a %d-dimensional distribution but %s has %d elements; declare %s[%d]", mv, mv.Dim(), s.param.Name, s.param.Dim(), s.param.Name, mv.Dim())
			}
			s.tr = transform{lo: math.Inf(-1), hi: math.Inf(1)}
		}
		return mv, nil
	}
	if _, ok := v.(*CategoricalLogit); ok {
		return nil, ast.Errorf(st.Dist.Pos(), "%s has a discrete prior categorical_logit; parameters are continuous", s.param.Name)
	}
	dv, ok := v.(*DistVal)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the prior of %s must be a distribution, got %s", s.param.Name, eval.Describe(v))
	}
	if !first {
		return dv, nil
	}
	if dv.Family.Discrete() {
		return nil, ast.Errorf(st.Dist.Pos(), "%s has a discrete prior %s; parameters are continuous", s.param.Name, dv.Family.Name())
	}
	width, err := dv.width()
	if err != nil {
		return nil, ast.Errorf(st.Dist.Pos(), "%v", err)
	}
	if width != 1 && width != s.param.Dim() {
		return nil, ast.Errorf(st.Dist.Pos(), "the prior of %s has parameters of length %d but %s has %d elements", s.param.Name, width, s.param.Name, s.param.Dim())
	}
	p := make([]float64, len(dv.Params))
	for j, par := range dv.Params {
		p[j], _, _ = paramAt(par, 0)
	}
	lo, hi := dv.Family.Support(p)
	// A support that moves with the parameters (uniform(0, 1 - a)) needs a
	// transform that moves too: possible where the bounds are parameters of
	// the family.
	for j, par := range dv.Params {
		if !eval.IsAD(par) {
			continue
		}
		q := append([]float64(nil), p...)
		q[j] += 1
		if l2, h2 := dv.Family.Support(q); l2 != lo || h2 != hi {
			b, ok := dv.Family.(dist.Bounded)
			if !ok {
				return nil, ast.Errorf(st.Dist.Pos(), "the support of %s's prior %s depends on model parameters, which only uniform's bounds may", s.param.Name, dv.Family.Name())
			}
			if l, h := b.BoundParams(); j != l && j != h {
				return nil, ast.Errorf(st.Dist.Pos(), "the support of %s's prior %s depends on model parameters", s.param.Name, dv.Family.Name())
			}
			s.moving = true
		}
	}
	if truncMoves(dv) {
		s.moving = true
	}
	if err := dv.Family.Check(p); err != nil {
		return nil, ast.Errorf(st.Dist.Pos(), "%v", err)
	}
	if width > 1 && !s.moving {
		// Every element must share the support (a vector of uniform bounds).
		for i := 1; i < width; i++ {
			for j, par := range dv.Params {
				p[j], _, _ = paramAt(par, i)
			}
			if l2, h2 := dv.Family.Support(p); l2 != lo || h2 != hi {
				return nil, ast.Errorf(st.Dist.Pos(), "the elements of %s have priors with different bounds", s.param.Name)
			}
		}
	}
	s.tr = transform{lo: lo, hi: hi}
	s.improper = dist.IsImproper(dv.Family)
	if dv.Ordered {
		if s.param.Size == 0 {
			return nil, ast.Errorf(st.Dist.Pos(), "ordered(...) is the prior of a vector parameter, NAME[K] ~ ordered(d); %s is a number", s.param.Name)
		}
		if s.tr.lower() || s.tr.upper() || s.moving {
			return nil, ast.Errorf(st.Dist.Pos(), "ordered(...) needs a distribution on the whole real line; %s is bounded", dv.Family.Name())
		}
		s.ordered = true
	}
	return dv, nil
}

// constrainedMoving records each element of the parameter on the support
// of its prior as evaluated now (recordMoving), whose ends may be tape
// values.
func (d *Density) constrainedMoving(s *slot, prior *DistVal) (eval.Value, []ad.Var, bool) {
	t := d.tape
	out := make([]ad.Var, s.param.Dim())
	logJ := make([]ad.Var, 0, len(out))
	for i := range out {
		lo, hi := movingEnds(prior, i)
		x, j, ok := recordMoving(t, d.in[s.off+i], lo, hi)
		if !ok {
			return nil, nil, false
		}
		out[i] = x
		logJ = append(logJ, j)
	}
	if s.param.Size == 0 {
		return &eval.ADNum{T: t, V: out[0]}, logJ, true
	}
	return &eval.ADVec{T: t, Vs: out}, logJ, true
}

// increasing reports a vector whose elements strictly increase.
func increasing(v eval.Value) bool {
	xs, _ := eval.ToFloats(v)
	for i := 1; i < len(xs); i++ {
		if !(xs[i] > xs[i-1]) {
			return false
		}
	}
	return true
}

// paramLen is the number of values a distribution parameter holds.
func paramLen(p eval.Value) int {
	switch p := p.(type) {
	case *eval.Vec:
		return len(p.Data)
	case *eval.ADVec:
		return len(p.Vs)
	}
	return 1
}

// constrained records the parameter's constrained value and log-Jacobians.
func (d *Density) constrained(s *slot) (eval.Value, []ad.Var) {
	t := d.tape
	var logJ []ad.Var
	if s.vt != nil {
		x, j := s.vt.record(t, d.in[s.off:s.off+s.free()])
		return x, []ad.Var{j}
	}
	if s.ordered {
		// x₁ = u₁, xₖ = xₖ₋₁ + e^{uₖ}; log |dx/du| = Σₖ₌₂ uₖ.
		vs := make([]ad.Var, s.param.Size)
		vs[0] = d.in[s.off]
		for i := 1; i < len(vs); i++ {
			u := d.in[s.off+i]
			vs[i] = t.Add(vs[i-1], t.Exp(u))
			logJ = append(logJ, u)
		}
		return &eval.ADVec{T: t, Vs: vs}, logJ
	}
	if s.param.Size == 0 {
		x, j, ok := s.tr.record(t, d.in[s.off])
		if ok {
			logJ = append(logJ, j)
		}
		return &eval.ADNum{T: t, V: x}, logJ
	}
	vs := make([]ad.Var, s.param.Size)
	for i := range vs {
		x, j, ok := s.tr.record(t, d.in[s.off+i])
		vs[i] = x
		if ok {
			logJ = append(logJ, j)
		}
	}
	return &eval.ADVec{T: t, Vs: vs}, logJ
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
		return lp, nil
	}
	r, ok := rhs.(Distribution)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the right of `~` must be a distribution or an observation family, got %s", eval.Describe(rhs))
	}
	if dv, ok := r.(*DistVal); ok {
		if lp, done, err := d.observeUnivariate(st, dv, data, what, obs); done {
			return lp, err
		}
	}
	if cl, ok := r.(*CategoricalLogit); ok {
		if lat, ok := cl.Beta.(Latent); ok {
			return d.observeClasses(st, lat, data, what, obs)
		}
	}
	lp, err := r.LogDensity(d.tape, data, what)
	var se *SupportError
	if errors.As(err, &se) {
		return nil, se // the caller decides: an error on the first run, −Inf later
	}
	if err != nil {
		return nil, ast.Errorf(st.At, "%v", err)
	}
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
func (d *Density) observeUnivariate(st *ast.Tilde, r *DistVal, data eval.Value, what string, obs Observer) (lp eval.Value, done bool, err error) {
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
