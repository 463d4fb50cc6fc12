package model

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
)

// What the inference services (lang/infer) read of a compiled model's
// layout: where each free parameter lies among the unconstrained
// coordinates and the constrained columns, the names of coordinates, and
// the held values.

// FreeSlot is one free parameter's place in the layout.
type FreeSlot struct {
	Name   string
	Off    int  // its first unconstrained coordinate
	Free   int  // its number of unconstrained coordinates
	Size   int  // its number of constrained values (columns)
	Vector bool // a vector or a matrix, not a number
}

// FreeSlots lists the free parameters' places in declaration order.
func (c *Compiled) FreeSlots() []FreeSlot {
	var out []FreeSlot
	for _, s := range c.slots {
		if s.off >= 0 {
			out = append(out, FreeSlot{Name: s.param.Name, Off: s.off, Free: s.free(), Size: s.size(), Vector: s.param.Size > 0})
		}
	}
	return out
}

// ConstrainsByRunning reports a model whose supports move with its
// parameters: Constrain then runs the model, and a fit constrains its
// draws from the derived quantities' program (Density.DerivedChain).
func (c *Compiled) ConstrainsByRunning() bool { return c.th != nil }

// Record is the record of every parameter's value from cons, the
// constrained values of the free ones as Constrain returns them; held
// parameters take their given values.
func (c *Compiled) Record(cons []float64) *eval.Record { return c.record(cons) }

// CoordName names coordinate i of the unconstrained vector: the
// parameter, with an index for a vector or matrix.
func (c *Compiled) CoordName(i int) string {
	for _, s := range c.slots {
		if s.off < 0 || i < s.off || i >= s.off+s.free() {
			continue
		}
		if s.free() == 1 {
			return s.param.Name
		}
		return fmt.Sprintf("%s[%d]", s.param.Name, i-s.off+1)
	}
	return fmt.Sprintf("coordinate %d", i+1)
}

// CoordNames lists the parameters of the coordinates idx, once each.
func (c *Compiled) CoordNames(idx []int) string {
	var names []string
	seen := map[string]bool{}
	for _, i := range idx {
		n := c.CoordName(i)
		if b, _, ok := strings.Cut(n, "["); ok {
			n = b
		}
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	switch len(names) {
	case 1:
		return names[0]
	default:
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
}

// HeldValues are the values given for the held parameters, by name.
func (c *Compiled) HeldValues() map[string]eval.Value {
	out := map[string]eval.Value{}
	for _, s := range c.slots {
		if s.off < 0 {
			out[s.param.Name] = s.given
		}
	}
	return out
}
