package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
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
	// Latent says how observations of a latent function (`f ~ gp(...)`)
	// enter: the objective of the paper's taxonomy; the zero value is the
	// log marginal likelihood.
	Latent Objective
}

// Compiled is a model turned into a log density of its free parameters on
// the unconstrained scale, with some parameters possibly held fixed.
type Compiled struct {
	Model  *eval.Model
	Terms  Terms
	slots  []*slot
	byStmt map[*ast.Tilde]*slot
	dim    int

	mu    sync.Mutex
	cache map[any]any
	// evals counts its densities' walks and replays (Evaluations).
	evals atomic.Int64
	// warned holds the model warnings already given, so each shows once.
	warned map[string]bool
	// warnings are the messages observation families raised while the
	// density was evaluated (e.g. BKE's degenerate-embedding warning).
	warnings []string
	// th, set when a slot's bounds move, runs the model to constrain a
	// point (Constrain).
	th *eval.Thread
	// NoReplay makes every evaluation walk the model (replay.go), for
	// comparison; Compile takes it from the interpreter's Options.NoReplay
	// (set by KML_REPLAY=0 in cmd/kml and the kml package).
	NoReplay bool
	// held is the log density Compile's run found when every parameter is
	// held (dim 0): the density is then that one number, and logp and
	// loglik need not run the model again (a GP model's run is an O(n³)
	// factorisation).
	held   float64
	isHeld bool
	// Runs counts the first runs Compile made: one, plus one per parameter
	// whose prior changed the layout (none again for an instance of a
	// model family that the compile cache knew).
	Runs int
	// Reused says the layout came from the compile cache (cache.go).
	Reused bool
}

type slot struct {
	param eval.ModelParam
	// tr maps the parameter's free reals onto its prior's support; until
	// the first run has seen the prior (probed) it is the identity.
	tr dists.Transform
	// off is the parameter's first index in the unconstrained vector, or −1
	// when it is held fixed at fixed (given is the value as the caller gave
	// it, for reporting).
	off          int
	fixed, given eval.Value
	// improper says the prior is flat(), found on the first run.
	improper bool
	// probed says the prior has been seen (its transform is known); fixErr
	// is a held value that did not fit the parameter's shape before it was.
	probed bool
	fixErr error
}

// free is the number of free reals the parameter takes.
func (s *slot) free() int { return s.tr.Free() }

// size is the number of values the parameter has (its output columns).
func (s *slot) size() int { return s.tr.Size() }

// names are the values' names: ell; w.1, w.2, ...; L.1.1, L.2.1, ...
func (s *slot) names() []string { return s.tr.Names(s.param.Name) }

// relayout reports whether giving the parameter transform tr changes the
// layout of the unconstrained vector: its number of free reals, or how a
// held value reads (a matrix for a Cholesky factor).
func (s *slot) relayout(tr dists.Transform) bool {
	if tr.Free() != s.tr.Free() {
		return true
	}
	if s.given == nil {
		return false
	}
	_, was := s.tr.Held(s.param.Name, s.given)
	_, now := tr.Held(s.param.Name, s.given)
	return fmt.Sprint(was) != fmt.Sprint(now)
}

// Dim is the number of free reals.
func (c *Compiled) Dim() int { return c.dim }

// Held returns the log density of a model whose parameters are all held
// (Dim 0), found when it was compiled, and false when some are free.
func (c *Compiled) Held() (float64, bool) { return c.held, c.isHeld }

// Names lists the free parameters' values' names on the constrained scale:
// `ell`, `w.1`, `w.2`, ... for a vector parameter, and `L.1.1`, `L.1.2`,
// ... (column by column, as Stan writes matrices) for a matrix parameter.
func (c *Compiled) Names() []string {
	var out []string
	for _, s := range c.slots {
		if s.off >= 0 {
			out = append(out, s.names()...)
		}
	}
	return out
}

// Columns is the number of constrained values Constrain writes, one per
// name of Names.
func (c *Compiled) Columns() int {
	n := 0
	for _, s := range c.slots {
		if s.off >= 0 {
			n += s.size()
		}
	}
	return n
}

// FreeParams lists the free parameters.
func (c *Compiled) FreeParams() []eval.ModelParam {
	var out []eval.ModelParam
	for _, s := range c.slots {
		if s.off >= 0 {
			out = append(out, s.param)
		}
	}
	return out
}

// Compile makes the log density of m with the parameters in fixed held at
// their values (constrained scale). It runs the model once at the origin of
// the unconstrained scale, which fixes each parameter's transform from its
// prior's support and reports mistakes in the model (a prior that is not a
// distribution, data outside a distribution's support, mismatched shapes)
// before any fitting starts. th is the thread of the caller; pos is where
// to report a bad fixed value.
func Compile(th *eval.Thread, pos ast.Pos, m *eval.Model, fixed map[string]eval.Value, terms Terms) (*Compiled, error) {
	c := &Compiled{Model: m, Terms: terms, byStmt: map[*ast.Tilde]*slot{}, cache: map[any]any{}, warned: map[string]bool{},
		NoReplay: th.Interp().Options().NoReplay}
	for name := range fixed {
		if !hasParam(m, name) {
			return nil, ast.Errorf(pos, "%v", NoParam(m, name))
		}
	}
	for _, p := range m.Params {
		tr, err := dists.BijectTo(dists.Real, p)
		if err != nil {
			return nil, err
		}
		s := &slot{param: p, off: -1, tr: tr}
		c.slots = append(c.slots, s)
		c.byStmt[p.Stmt] = s
	}
	// An instance of a model family whose data have the shapes of an
	// earlier instance starts from the transforms that one found.
	key := cacheKey(m, fixed, terms)
	if key != "" {
		if v, ok := m.Family.Lookup(key); ok {
			c.reuse(v.(*layoutTemplate))
		}
	}
	// The first run finds each parameter's transform from its prior; a
	// prior with a support of its own (dirichlet) changes the parameter's
	// number of free reals, so the layout is made again and the run
	// repeated (once per such parameter: its transform is then known).
	var lp float64
	for err := errRelayout; err != nil; {
		if err = c.layout(pos, fixed); err != nil {
			return nil, err
		}
		d := c.NewDensity(th.Fork())
		c.Runs++
		if lp, err = d.run(make([]float64, c.dim), nil, scoped{scope: scopeFirst}); err != nil && err != errRelayout {
			return nil, m.BlameData(err)
		}
	}
	if key != "" {
		m.Family.Store(key, c.template())
	}
	// The first run adds the same terms as any other once it has not
	// failed, so with nothing free its value is the density's.
	c.held, c.isHeld = lp, c.dim == 0
	// A transform that reads its prior at every evaluation (bounds that
	// move with other parameters) constrains a point only in a run.
	if slices.ContainsFunc(c.slots, func(s *slot) bool { return s.tr.NeedsPrior() }) {
		c.th = th.Fork()
	}
	c.warnImproper()
	return c, nil
}

// errRelayout stops the first run when a prior changes its parameter's
// number of free reals (Compile then lays the parameters out again).
var errRelayout = errors.New("relayout")

// layout gives each free parameter its coordinates in the unconstrained
// vector and checks each held value against its parameter's shape. A value
// that does not fit before the parameter's prior has been seen is kept
// (fixErr) until it has: the prior may make it a matrix.
func (c *Compiled) layout(pos ast.Pos, fixed map[string]eval.Value) error {
	c.dim = 0
	for _, s := range c.slots {
		s.off, s.fixed, s.given, s.fixErr = -1, nil, nil, nil
		v, ok := fixed[s.param.Name]
		if !ok {
			s.off = c.dim
			c.dim += s.free()
			continue
		}
		fv, err := s.tr.Held(s.param.Name, v)
		if err != nil {
			if s.probed {
				return ast.Errorf(pos, "%v", err)
			}
			s.fixErr = ast.Errorf(pos, "%v", err)
		}
		s.fixed, s.given = fv, v
	}
	return nil
}

// warnImproper warns when every free parameter has an improper prior: the
// posterior is then proper only if the likelihood makes it so, which KML
// cannot check.
func (c *Compiled) warnImproper() {
	var flat []string
	free := 0
	for _, s := range c.slots {
		if s.off < 0 {
			continue
		}
		free++
		if s.improper {
			flat = append(flat, s.param.Name)
		}
	}
	if free > 0 && len(flat) == free {
		c.warnOnce("improper", fmt.Sprintf("every parameter (%s) has the improper prior flat(): the posterior may be improper, which KML cannot check; give a parameter a proper prior if the data do not identify it", NameList(flat)))
	}
}

// CompileFor compiles m for a Go caller (tests, embedders) on a thread of
// the interpreter's own.
func CompileFor(in *eval.Interpreter, m *eval.Model, fixed map[string]eval.Value, terms Terms) (*Compiled, error) {
	return Compile(in.NewThread(nil), ast.Pos{}, m, fixed, terms)
}

func hasParam(m *eval.Model, name string) bool {
	for _, p := range m.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// NoParam is the error for a name that is not one of m's parameters.
func NoParam(m *eval.Model, name string) error {
	names := m.ParamNames()
	return fmt.Errorf("model %s has no parameter %q; its parameters are %s", m.Name, name, NameList(names))
}

// Constrain maps an unconstrained vector to the constrained values, in the
// order of Names.
func (c *Compiled) Constrain(dst, q []float64) []float64 {
	if c.th != nil {
		return c.constrainRun(dst, q)
	}
	dst = dst[:0]
	for _, s := range c.slots {
		if s.off < 0 {
			continue
		}
		dst = s.tr.Constrain(dst, q[s.off:s.off+s.free()])
	}
	return dst
}

// constrainRun constrains q by running the model: the bounds of a moving
// slot are known only once the parameters before it are.
func (c *Compiled) constrainRun(dst, q []float64) []float64 {
	d := c.NewDensity(c.th.Fork())
	cp := capture{out: dst[:0]}
	if err := d.Run(q, &cp); err != nil {
		for range c.Columns() - len(cp.out) {
			cp.out = append(cp.out, math.NaN())
		}
	}
	return cp.out
}

// Unconstrain maps values given by name (constrained scale) to an
// unconstrained vector; parameters not given are NaN.
func (c *Compiled) Unconstrain(values map[string]eval.Value) ([]float64, error) {
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
		u, err := s.tr.Unconstrain(name, v)
		if err != nil {
			return nil, err
		}
		copy(q[s.off:], u)
	}
	return q, nil
}

// Values is every parameter at the unconstrained point q as a record in
// declaration order: the free ones constrained, the held ones as given.
func (c *Compiled) Values(q []float64) *eval.Record {
	return c.record(c.Constrain(nil, q))
}

// record is the record of every parameter's value from cons, the
// constrained values of the free ones (as Constrain returns them); fixed
// parameters take their given values.
func (c *Compiled) record(cons []float64) *eval.Record {
	rec := eval.NewRecord()
	off := 0
	for _, s := range c.slots {
		if s.off < 0 {
			rec.Set(s.param.Name, s.given)
			continue
		}
		rec.Set(s.param.Name, s.tr.Value(cons[off:off+s.size()]))
		off += s.size()
	}
	return rec
}

// warnOnce records a warning under key unless one was recorded already.
func (c *Compiled) warnOnce(key, msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warned[key] {
		return
	}
	c.warned[key] = true
	c.warnings = append(c.warnings, msg)
}

// TakeWarnings returns and clears the warnings raised so far, sorted.
func (c *Compiled) TakeWarnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	sort.Strings(w)
	return w
}

// cached returns the value cached under key, building it once.
func (c *Compiled) cached(key any, build func() (any, error)) (any, error) {
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

// String describes the compiled density: the terms it includes, then one
// line per parameter with its coordinates in the unconstrained vector and
// its transform, or the value it is held at.
func (c *Compiled) String() string {
	var b strings.Builder
	var terms []string
	for _, t := range []struct {
		on   bool
		name string
	}{{c.Terms.Prior, "prior"}, {c.Terms.Likelihood, "likelihood"}, {c.Terms.Jacobian, "Jacobian"}} {
		if t.on {
			terms = append(terms, t.name)
		}
	}
	fmt.Fprintf(&b, "model %s: %d free reals; terms: %s\n", c.Model.Name, c.dim, strings.Join(terms, ", "))
	for _, s := range c.slots {
		name := s.param.Name
		if s.param.Size > 0 {
			name = fmt.Sprintf("%s[%d]", name, s.param.Size)
		}
		switch {
		case s.off < 0:
			fmt.Fprintf(&b, "  %-8s held at %s\n", name, s.given)
		case s.param.Size == 0:
			fmt.Fprintf(&b, "  %-8s q[%d] %s\n", name, s.off, s.tr.Describe())
		default:
			fmt.Fprintf(&b, "  %-8s q[%d:%d] %s\n", name, s.off, s.off+s.free(), s.tr.Describe())
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
