package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model/dists"
)

// The compile cache. A model declared with data arguments, `model m(x, y)
// { ... }`, is compiled for every data set it is called with; instances
// whose data have the same shapes (eval.Model.Shapes: each argument's
// shape, the numbers' values, the vector parameters' sizes) lay their
// parameters out alike, so Compile keeps, per family and per shape, the
// transform each parameter's prior gave, and starts the next instance from
// them. The first run at the origin still runs for every instance: it
// checks the new data against the model, and it re-derives every transform
// from the prior (density.go), so a transform that differs after all (a
// bound that is data) lays the parameters out again, as for a new model.
// What a hit saves is those extra layout runs and, at the language level,
// parsing and checking the model again.

// layoutTemplate is what one compile found: each parameter's transform and
// whether its prior is improper, in declaration order.
type layoutTemplate struct {
	tr       []dists.Transform
	improper []bool
}

// cacheKey is the compile cache's key for m, or "" when m is not an
// instance of a family: its shapes, the held parameters' names and the
// terms (a held value may change the layout: a matrix for a Cholesky
// factor).
func cacheKey(m *eval.Model, fixed map[string]eval.Value, terms Terms) string {
	if m.Family == nil {
		return ""
	}
	var held []string
	for name, v := range fixed {
		held = append(held, name+"="+v.Type()+eval.Describe(v))
	}
	sort.Strings(held)
	return fmt.Sprintf("%s | held: %s | terms: %+v", m.Shapes, strings.Join(held, ", "), terms)
}

// reuse starts c's parameters from t's transforms.
func (c *Compiled) reuse(t *layoutTemplate) {
	if len(t.tr) != len(c.slots) {
		return
	}
	for i, s := range c.slots {
		s.tr, s.improper = t.tr[i], t.improper[i]
	}
	c.Reused = true
}

// template is the layout c found, for the next instance of its family.
func (c *Compiled) template() *layoutTemplate {
	t := &layoutTemplate{tr: make([]dists.Transform, len(c.slots)), improper: make([]bool, len(c.slots))}
	for i, s := range c.slots {
		t.tr[i], t.improper[i] = s.tr, s.improper
	}
	return t
}
