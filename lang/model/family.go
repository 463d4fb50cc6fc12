package model

import (
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// Family is the value of an observation family call such as
// `bke(rbf(ell), noise: 1, landmarks: z)` on the right of `~`: it knows the
// log likelihood of the data on its left. A new model family (a latent GP)
// implements it and registers a builtin in stdlib that returns it.
type Family interface {
	eval.Value
	// LogLik returns the log likelihood of data: a Num, or an *eval.ADNum
	// on the tape of the family's own parameters when they depend on model
	// parameters.
	LogLik(ev *Eval, data eval.Value) (eval.Value, error)
}

// Eval is what an observation family sees of the one evaluation of the log
// density it is part of: the compiled model's shared cache and warnings, and
// whether the point is being checked. It is passed explicitly to LogLik.
type Eval struct {
	c *Compiled
	// Checking asks the family to examine the point for the pathologies it
	// knows and report them with WarnOnce.
	Checking bool
	// optimizing is set for a Density an optimiser drives (Optimizing);
	// local is Local's state, one map per such Density.
	optimizing bool
	local      map[any]any
}

// Local returns the value kept under key for the optimiser run evaluating
// the model (one Density set up by Optimizing), building it at the first
// call, and nil for any other evaluation. Unlike Cache it is not shared
// between optimiser starts, so a family may keep state that evaluations
// update, such as where the last evaluation's inner solve ended (a latent
// GP's warm start). A sampler's chains get none: a trajectory amplifies
// differences at the level of rounding, and a chain's draws must not
// depend on what its Density evaluated before. A family keeps one value
// per term (key it by the term's source position, not by a value built
// at each walk), so that the map stays small; the walk that records a
// replayable model and the walks after it see the same value.
func (ev *Eval) Local(key any, build func() any) any {
	if !ev.optimizing {
		return nil
	}
	if v, ok := ev.local[key]; ok {
		return v
	}
	if ev.local == nil {
		ev.local = map[any]any{}
	}
	v := build()
	ev.local[key] = v
	return v
}

// Cache returns the value cached under key for the model being evaluated,
// building it once. Families keep their data-dependent precomputation here
// (BKE's pairwise differences), shared by every chain.
func (ev *Eval) Cache(key any, build func() (any, error)) (any, error) {
	return ev.c.cached(key, build)
}

// Objective is how observations of a latent function enter the density.
func (ev *Eval) Objective() Objective { return ev.c.Terms.Latent }

// WarnOnce records a warning about the model, keeping only the first
// message recorded under key (the same pathology seen at many draws is one
// warning). The fitting builtin shows the warnings when it is done.
func (ev *Eval) WarnOnce(key string, pos ast.Pos, msg string) { ev.c.warnOnce(key, msg) }
