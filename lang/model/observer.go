package model

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// One run of the model walks its statements once; what the run is for
// beyond the log density — collecting the observation families, the latent
// observations, the derived quantities, the constrained parameters, or
// checking the point — is an Observer passed to that run, as NumPyro's
// handlers (trace, substitute, seed) wrap one execution of a model. The run
// tells the observer what it meets; the observer's Scope says which
// statements the run evaluates at all.

// A Scope is which of the model's statements a run evaluates, and how a
// point outside a support is met.
type Scope uint8

const (
	// ScopeDensity evaluates the log density: the terms the Compiled's
	// Terms select; a point outside a support has density zero.
	ScopeDensity Scope = iota
	// ScopeCheck is ScopeDensity with the observation families asked to
	// examine the point (Eval.Checking).
	ScopeCheck
	// ScopeValues evaluates what defines values only — the free parameters
	// and the derived quantities — skipping the priors (but those whose
	// support moves, which constrain their parameter), the observations
	// and target +=.
	ScopeValues
	// ScopeGenerated is ScopeValues and the generated block.
	ScopeGenerated
	// scopeFirst is Compile's first run: every prior and observation is
	// evaluated, fixing each parameter's transform from its prior's
	// support, and a point outside a support is an error.
	scopeFirst
)

// valuesOnly reports a scope that skips the priors, observations and
// target +=.
func (s Scope) valuesOnly() bool { return s == ScopeValues || s == ScopeGenerated }

// observes reports a scope that evaluates the observations: the
// likelihood's terms, or all of them on the first run (which checks them).
func (s Scope) observes(t Terms) bool {
	return !s.valuesOnly() && (t.Likelihood || s == scopeFirst)
}

// targets reports a scope that evaluates target += statements.
func (s Scope) targets(t Terms) bool { return !s.valuesOnly() && t.Likelihood }

// priors reports a scope that evaluates a parameter's prior: for its term,
// on the first run (which fixes the transform), or because its support
// moves (the prior then constrains the parameter).
func (s Scope) priors(t Terms, moving bool) bool {
	if s.valuesOnly() {
		return moving
	}
	return t.Prior || s == scopeFirst || moving
}

// priorTerms reports a scope that adds the priors' log densities.
func (s Scope) priorTerms(t Terms) bool { return !s.valuesOnly() && t.Prior }

// rejects reports a scope in which a point outside a support has density
// zero (−Inf); on the first run it is an error to report.
func (s Scope) rejects() bool { return s != scopeFirst }

// An Observer watches one run of the model (Density.Run): it says which
// statements the run evaluates and is told, in statement order, what the
// run meets. Embed Watch for the methods an observer does not need.
type Observer interface {
	// Scope is which statements the run evaluates.
	Scope() Scope
	// Param is told each free parameter's constrained value (a held one
	// is not told).
	Param(name string, x eval.Value)
	// Derived is told each `NAME = EXPR` of the model as evaluated.
	Derived(name string, v eval.Value)
	// Generated is told each value of the generated block (evaluated only
	// in ScopeGenerated), off the tape.
	Generated(name string, v eval.Value)
	// Family is told each observation family on the right of `~`, as
	// evaluated there.
	Family(f Family)
	// Latent is told each observation of a latent function.
	Latent(o LatentObservation)
	// Observed is told each `DATA ~ DIST` statement whose right is a
	// distribution or a family (not a latent function's likelihood,
	// which Latent is told), with its log density, after Family.
	Observed(o Observation)
}

// Watch is the observer of a plain log density run: ScopeDensity, told
// everything, keeping nothing. Observers embed it.
type Watch struct{}

func (Watch) Scope() Scope                 { return ScopeDensity }
func (Watch) Param(string, eval.Value)     {}
func (Watch) Derived(string, eval.Value)   {}
func (Watch) Generated(string, eval.Value) {}
func (Watch) Family(Family)                {}
func (Watch) Latent(LatentObservation)     {}
func (Watch) Observed(Observation)         {}

// scoped is a Watch with another scope: Check's (ScopeCheck) and the first
// run's.
type scoped struct {
	Watch
	scope Scope
}

func (w scoped) Scope() Scope { return w.scope }

// recorder wraps a run's observer and notes the free parameters and the
// derived quantities of a walk that may become the Density's program
// (derivedprog.go).
type recorder struct {
	Observer
	rec *recording
}

func (r recorder) Param(name string, x eval.Value) {
	r.rec.noteParam(x)
	r.Observer.Param(name, x)
}

func (r recorder) Derived(name string, v eval.Value) {
	r.rec.noteDerived(name, v)
	r.Observer.Derived(name, v)
}

// FamilyCollector collects the observation families as evaluated
// (Density.Families).
type FamilyCollector struct {
	Watch
	Out []Family
}

func (fc *FamilyCollector) Family(f Family) { fc.Out = append(fc.Out, f) }

// LatentCollector collects the observations of latent functions
// (Density.LatentObservations).
type LatentCollector struct {
	Watch
	Out []LatentObservation
}

func (lc *LatentCollector) Latent(o LatentObservation) { lc.Out = append(lc.Out, o) }

// DerivedCollector collects the numeric derived quantities, and with
// Generate the generated block's values, skipping the priors and the
// observations (Density.Derived, Density.DerivedAt).
type DerivedCollector struct {
	Watch
	Generate bool
	Out      []DerivedValue
}

func (dc *DerivedCollector) Scope() Scope {
	if dc.Generate {
		return ScopeGenerated
	}
	return ScopeValues
}

func (dc *DerivedCollector) Derived(name string, v eval.Value) {
	if xs, vec, ok := dists.Numbers(v); ok {
		dc.Out = append(dc.Out, DerivedValue{Name: name, Values: xs, Vector: vec})
	}
}

// Generated records a number or vector, and a condition as 0 or 1, so that
// its mean is the posterior probability.
func (dc *DerivedCollector) Generated(name string, v eval.Value) {
	if b, ok := v.(eval.Bool); ok {
		x := 0.0
		if b {
			x = 1
		}
		dc.Out = append(dc.Out, DerivedValue{Name: name, Values: []float64{x}})
		return
	}
	dc.Derived(name, v)
}

// capture collects the free parameters' constrained values, flattened
// (constrainRun).
type capture struct {
	Watch
	out []float64
}

func (*capture) Scope() Scope                   { return ScopeValues }
func (c *capture) Param(_ string, x eval.Value) { c.out = append(c.out, dists.FlatValues(x)...) }
