package eval

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/ad"
)

// Terms selects the parts of a model's log density.
type Terms struct {
	// Prior includes the priors' log densities (false for ML-II).
	Prior bool
	// Likelihood includes the observations.
	Likelihood bool
	// Jacobian includes the transforms' log-Jacobians (true for sampling on
	// the unconstrained scale; false for MAP on the constrained scale and
	// for logp).
	Jacobian bool
}

// ObsFamily is the value of an observation family call such as
// `bke(rbf(ell), noise: 1, landmarks: z)` on the right of `~`: it knows the
// log likelihood of the data on its left.
type ObsFamily interface {
	Value
	// LogLik returns the log likelihood of data: a Num, or an *ADNum on the
	// tape of the family's own parameters when they depend on model
	// parameters.
	LogLik(th *Thread, data Value) (Value, error)
}

// Compiled is a model turned into a log density of its free parameters on
// the unconstrained scale, with some parameters possibly held fixed.
type Compiled struct {
	Model  *Model
	Terms  Terms
	slots  []*slot
	byStmt map[*ast.Tilde]*slot
	dim    int

	mu    sync.Mutex
	cache map[any]any
	// warned holds the model warnings already given, so each shows once.
	warned map[string]bool
	// Warnings are the messages observation families raised while the
	// density was evaluated (e.g. BKE's degenerate-embedding warning).
	Warnings []string
}

type slot struct {
	param ModelParam
	tr    transform
	// off is the parameter's first index in the unconstrained vector, or −1
	// when it is held fixed at fixed.
	off   int
	fixed Value
}

// Dim is the number of free reals.
func (c *Compiled) Dim() int { return c.dim }

// Names lists the free reals' names on the constrained scale: `ell`, and
// `w.1`, `w.2`, ... for a vector parameter.
func (c *Compiled) Names() []string {
	var out []string
	for _, s := range c.slots {
		if s.off < 0 {
			continue
		}
		out = append(out, s.param.names()...)
	}
	return out
}

// FreeParams lists the free parameters.
func (c *Compiled) FreeParams() []ModelParam {
	var out []ModelParam
	for _, s := range c.slots {
		if s.off >= 0 {
			out = append(out, s.param)
		}
	}
	return out
}

func (p ModelParam) names() []string {
	if p.Size == 0 {
		return []string{p.Name}
	}
	out := make([]string, p.Size)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d", p.Name, i+1)
	}
	return out
}

// Compile makes the log density of m with the parameters in fixed held at
// their values (constrained scale). It runs the model once at the origin of
// the unconstrained scale, which fixes each parameter's transform from its
// prior's support and reports mistakes in the model (a prior that is not a
// distribution, data outside a distribution's support, mismatched shapes)
// before any fitting starts.
func (th *Thread) Compile(pos ast.Pos, m *Model, fixed map[string]Value, terms Terms) (*Compiled, error) {
	c := &Compiled{Model: m, Terms: terms, byStmt: map[*ast.Tilde]*slot{}, cache: map[any]any{}, warned: map[string]bool{}}
	known := map[string]bool{}
	for _, p := range m.Params {
		known[p.Name] = true
	}
	for name := range fixed {
		if !known[name] {
			return nil, ast.Errorf(pos, "model %s has no parameter %q; its parameters are %s", m.Name, name, strings.Join(m.paramNames(), ", "))
		}
	}
	for _, p := range m.Params {
		s := &slot{param: p, off: -1}
		if v, ok := fixed[p.Name]; ok {
			fv, err := fixedValue(p, v)
			if err != nil {
				return nil, ast.Errorf(pos, "%v", err)
			}
			s.fixed = fv
		} else {
			s.off = c.dim
			c.dim += p.Dim()
		}
		c.slots = append(c.slots, s)
		c.byStmt[p.stmt] = s
	}
	d := c.newDensity(th.Fork())
	if _, err := d.run(make([]float64, c.dim), nil, true); err != nil {
		return nil, err
	}
	return c, nil
}

func (m *Model) paramNames() []string {
	out := make([]string, len(m.Params))
	for i, p := range m.Params {
		out[i] = p.Name
	}
	return out
}

// fixedValue checks a held value against the parameter's shape.
func fixedValue(p ModelParam, v Value) (Value, error) {
	if p.Size == 0 {
		x, ok := ToFloat(v)
		if !ok {
			return nil, fmt.Errorf("%s is a number, got %s", p.Name, Describe(v))
		}
		return Num(x), nil
	}
	if x, ok := v.(Num); ok {
		xs := make([]float64, p.Size)
		for i := range xs {
			xs[i] = float64(x)
		}
		return &Vec{Data: xs}, nil
	}
	xs, ok := ToFloats(v)
	if !ok || len(xs) != p.Size {
		return nil, fmt.Errorf("%s is a vector of length %d, got %s", p.Name, p.Size, Describe(v))
	}
	return &Vec{Data: xs}, nil
}

// Constrain maps an unconstrained vector to the constrained values, in the
// order of Names.
func (c *Compiled) Constrain(dst, q []float64) []float64 {
	dst = dst[:0]
	for _, s := range c.slots {
		if s.off < 0 {
			continue
		}
		for i := 0; i < s.param.Dim(); i++ {
			x, _ := s.tr.constrain(q[s.off+i])
			dst = append(dst, x)
		}
	}
	return dst
}

// Unconstrain maps values given by name (constrained scale) to an
// unconstrained vector; parameters not given are NaN.
func (c *Compiled) Unconstrain(values map[string]Value) ([]float64, error) {
	q := make([]float64, c.dim)
	for i := range q {
		q[i] = math.NaN()
	}
	for name, v := range values {
		var s *slot
		for _, sl := range c.slots {
			if sl.param.Name == name {
				s = sl
			}
		}
		if s == nil {
			return nil, fmt.Errorf("model %s has no parameter %q", c.Model.Name, name)
		}
		if s.off < 0 {
			continue
		}
		fv, err := fixedValue(s.param, v)
		if err != nil {
			return nil, err
		}
		xs, _ := ToFloats(fv)
		for i, x := range xs {
			u := s.tr.unconstrain(x)
			if math.IsNaN(u) {
				return nil, fmt.Errorf("%s = %s is outside the support of its prior", name, FormatNumber(x))
			}
			q[s.off+i] = u
		}
	}
	return q, nil
}

// Density is the compiled model's log density for one goroutine (one chain
// or one optimiser start): it owns a tape and a thread.
type Density struct {
	c    *Compiled
	th   *Thread
	tape *ad.Tape
	in   []ad.Var
}

// NewDensity makes a Density for th, which should be a fork of the thread
// that compiled the model.
func (c *Compiled) NewDensity(th *Thread) *Density { return c.newDensity(th) }

func (c *Compiled) newDensity(th *Thread) *Density {
	th.comp = c
	return &Density{c: c, th: th, tape: ad.NewTape()}
}

// Dim is the number of free reals.
func (d *Density) Dim() int { return d.c.dim }

// LogDensity returns the log density at the unconstrained point q and writes
// its gradient into grad. It satisfies hmc.Model and inference.Objective.
func (d *Density) LogDensity(grad, q []float64) (float64, error) {
	return d.run(q, grad, false)
}

// Check evaluates the log density at q with Checking set, so observation
// families examine the point and record warnings on the Compiled.
func (d *Density) Check(q []float64) {
	d.th.Checking = true
	defer func() { d.th.Checking = false }()
	_, _ = d.run(q, nil, false) // only the warnings matter here
}

// Value evaluates the log density without its gradient.
func (d *Density) Value(q []float64) (float64, error) {
	return d.run(q, nil, false)
}

// run evaluates the model at q. With first set it also fixes each free
// parameter's transform from its prior's support.
func (d *Density) run(q, grad []float64, first bool) (float64, error) {
	c := d.c
	t := d.tape
	t.Reset()
	d.in = d.in[:0]
	for _, x := range q {
		d.in = append(d.in, t.Input(x))
	}
	env := NewEnv(c.Model.env)
	var terms []ad.Var
	constant := 0.0
	add := func(v Value) {
		switch v := v.(type) {
		case Num:
			constant += float64(v)
		case *ADNum:
			terms = append(terms, v.V)
		}
	}
	th := d.th
	for _, st := range c.Model.decl.Body {
		switch st := st.(type) {
		case *ast.Assign:
			v, err := th.expr(st.Value, env)
			if err != nil {
				return 0, err
			}
			env.Define(st.Name.Name, v)
		case *ast.Tilde:
			if st.Kind == ast.Observe {
				if !c.Terms.Likelihood && !first {
					continue
				}
				lp, err := d.observe(st, env)
				var se *SupportError
				if errors.As(err, &se) {
					if !first {
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
			var prior *DistVal
			if c.Terms.Prior || first {
				var err error
				if prior, err = d.prior(st, env, s, first); err != nil {
					return 0, err
				}
			}
			var x Value
			if s.off < 0 {
				x = s.fixed
			} else {
				var logJ []ad.Var
				x, logJ = d.constrained(s)
				if c.Terms.Jacobian {
					terms = append(terms, logJ...)
				}
			}
			env.Define(s.param.Name, x)
			if c.Terms.Prior {
				lp, err := prior.logDensity(t, x, s.param.Name)
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
		total += t.Value(out)
	}
	if grad != nil {
		if len(terms) > 0 {
			t.Gradient(grad, out, d.in)
		} else {
			clear(grad)
		}
	}
	return total, nil
}

// zero clears a gradient, if there is one, and returns nil.
func zero(grad []float64) error {
	clear(grad)
	return nil
}

// prior evaluates a parameter's prior; on the first run it also checks it
// and fixes the parameter's transform from the support.
func (d *Density) prior(st *ast.Tilde, env *Env, s *slot, first bool) (*DistVal, error) {
	v, err := d.th.expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	dv, ok := v.(*DistVal)
	if !ok {
		return nil, ast.Errorf(st.Dist.Pos(), "the prior of %s must be a distribution, got %s", s.param.Name, Describe(v))
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
	// A support that moves with the parameters (uniform(0, a) with a a
	// parameter) would need a transform that moves too.
	for j, par := range dv.Params {
		if !IsAD(par) {
			continue
		}
		q := append([]float64(nil), p...)
		q[j] += 1
		if l2, h2 := dv.Family.Support(q); l2 != lo || h2 != hi {
			return nil, ast.Errorf(st.Dist.Pos(), "the bounds of %s's prior %s depend on model parameters; use fixed bounds", s.param.Name, dv.Family.Name())
		}
	}
	if err := dv.Family.Check(p); err != nil {
		return nil, ast.Errorf(st.Dist.Pos(), "%v", err)
	}
	if width > 1 {
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
	return dv, nil
}

// constrained records the parameter's constrained value and log-Jacobians.
func (d *Density) constrained(s *slot) (Value, []ad.Var) {
	t := d.tape
	var logJ []ad.Var
	if s.param.Size == 0 {
		x, j, ok := s.tr.record(t, d.in[s.off])
		if ok {
			logJ = append(logJ, j)
		}
		return &ADNum{T: t, V: x}, logJ
	}
	vs := make([]ad.Var, s.param.Size)
	for i := range vs {
		x, j, ok := s.tr.record(t, d.in[s.off+i])
		vs[i] = x
		if ok {
			logJ = append(logJ, j)
		}
	}
	return &ADVec{T: t, Vs: vs}, logJ
}

// observe evaluates one `DATA ~ DIST` statement.
func (d *Density) observe(st *ast.Tilde, env *Env) (Value, error) {
	data, err := d.th.expr(st.LHS, env)
	if err != nil {
		return nil, err
	}
	rhs, err := d.th.expr(st.Dist, env)
	if err != nil {
		return nil, err
	}
	what := ast.Format(st.LHS)
	switch r := rhs.(type) {
	case *DistVal:
		if _, ok := data.(*Mat); ok {
			if rr, cc := data.(*Mat).Dims(); cc != 1 && rr != 1 {
				return nil, ast.Errorf(st.LHS.Pos(), "%s is a %d×%d matrix; a univariate distribution needs a vector of observations", what, rr, cc)
			}
		}
		lp, err := r.logDensity(d.tape, data, what)
		var se *SupportError
		if errors.As(err, &se) {
			return nil, se // the caller decides: an error on the first run, −Inf later
		}
		if err != nil {
			return nil, ast.Errorf(st.At, "%v", err)
		}
		return lp, nil
	case ObsFamily:
		lp, err := r.LogLik(d.th, data)
		if err != nil {
			var ae *ast.Error
			if errors.As(err, &ae) {
				return nil, err
			}
			return nil, ast.Errorf(st.At, "%v", err)
		}
		return lp, nil
	}
	return nil, ast.Errorf(st.Dist.Pos(), "the right of `~` must be a distribution or an observation family, got %s", Describe(rhs))
}

// Cache returns the value cached under key for the model being evaluated,
// building it once. Observation families keep their data-dependent
// precomputation here (BKE's pairwise differences), shared by every chain.
// Outside a model evaluation it just builds the value.
func (th *Thread) Cache(key any, build func() (any, error)) (any, error) {
	c := th.comp
	if c == nil {
		return build()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cache[key]; ok {
		return v, nil
	}
	v, err := build()
	if err != nil {
		return nil, err
	}
	c.cache[key] = v
	return v, nil
}

// Warn records a warning about the model being evaluated, once per message;
// outside a model evaluation it prints it at once.
func (th *Thread) Warn(pos ast.Pos, msg string) { th.WarnOnce(msg, pos, msg) }

// WarnOnce is Warn keeping only the first message recorded under key (the
// same pathology seen at many draws is one warning).
func (th *Thread) WarnOnce(key string, pos ast.Pos, msg string) {
	c := th.comp
	if c == nil {
		th.in.Warn(pos, msg)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned[key] {
		return
	}
	c.warned[key] = true
	c.Warnings = append(c.Warnings, msg)
}

// TakeWarnings returns and clears the warnings raised so far.
func (c *Compiled) TakeWarnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.Warnings
	c.Warnings = nil
	sort.Strings(w)
	return w
}

// Warn prints a warning for the user on stderr: "FILE:LINE:COL: warning: msg".
func (in *Interpreter) Warn(pos ast.Pos, msg string) {
	if pos.IsValid() {
		fmt.Fprintf(in.opts.Stderr, "%s: warning: %s\n", pos, msg)
	} else {
		fmt.Fprintf(in.opts.Stderr, "warning: %s\n", msg)
	}
}

// Compile compiles m for a Go caller (tests, embedders) on a thread of the
// interpreter's own.
func (in *Interpreter) Compile(m *Model, fixed map[string]Value, terms Terms) (*Compiled, error) {
	return in.newThread(nil).Compile(ast.Pos{}, m, fixed, terms)
}

// NewDensity makes a Density on a thread of the interpreter's own.
func (c *Compiled) NewDensityFor(in *Interpreter) *Density { return c.newDensity(in.newThread(nil)) }
