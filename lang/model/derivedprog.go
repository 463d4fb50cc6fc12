package model

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Derived quantities from the compiled program. The walk that becomes a
// Density's program (replay.go) computes every `NAME = EXPR` of the model
// on its tape, so the program already holds them: after a replay at a
// draw, their nodes hold the draw's values. DerivedChain reads them there
// instead of walking the model once per draw (a GARCH variance of 199
// numbers cost ~2 ms per draw walked; replayed it is one pass over the
// tape, nothing allocated). A model with a generated block, a Density that
// walks, a draw whose replay fails its checks, or a first draw whose
// replayed values are not the walk's to the bit are walked as before.

// derivedSlot is one numeric derived quantity in a recording: its tape
// nodes, one per element, or its values when it is off the tape (data
// only: in a replayable recording nothing computed from parameters is).
type derivedSlot struct {
	name   string
	vector bool
	vars   []ad.Var
	konst  []float64
	onTape bool
	ok     bool // a number or a vector this recording can give again
}

// noteDerived records the derived quantity name = v of the walk.
func (r *recording) noteDerived(name string, v eval.Value) {
	if sl, ok := slotOf(name, v); ok {
		r.derived = append(r.derived, sl)
	}
}

// noteParam records a free parameter's constrained value x, its elements
// in the order Constrain gives them (a matrix column by column).
func (r *recording) noteParam(x eval.Value) {
	sl, ok := slotOf("", x)
	if m, isMat := x.(*eval.ADMat); isMat && m.Rows == m.Cols {
		k := m.Rows
		sl = derivedSlot{vars: make([]ad.Var, k*k), onTape: true, vector: true}
		for i := range k {
			for j := range k {
				sl.vars[j*k+i] = m.Vs[i*k+j]
			}
		}
		ok = true
	}
	// A value the program cannot give again spoils the layout, so that
	// the program is not used for the parameters.
	sl.ok = ok
	r.params = append(r.params, sl)
}

// slotOf is v as a derivedSlot: its tape nodes, or its values off the
// tape; ok is false for a value that is not a number or a vector.
func slotOf(name string, v eval.Value) (derivedSlot, bool) {
	sl := derivedSlot{name: name, ok: true}
	switch v := v.(type) {
	case eval.Num:
		sl.konst = []float64{float64(v)}
	case *eval.Vec:
		sl.konst, sl.vector = slices.Clone(v.Data), true
	case *eval.ADNum:
		sl.vars, sl.onTape = []ad.Var{v.V}, true
	case *eval.ADVec:
		sl.vars, sl.vector, sl.onTape = slices.Clone(v.Vs), true, true
	default:
		return derivedSlot{}, false
	}
	return sl, true
}

// size is the number of values the slot holds.
func (sl *derivedSlot) size() int {
	if sl.onTape {
		return len(sl.vars)
	}
	return len(sl.konst)
}

// derivedProgram reads a replaying Density's derived quantities and, with
// params set, its free parameters' constrained values.
type derivedProgram struct {
	d      *Density
	params bool
	nPar   int // the number of parameter values in a row
	width  int // the number of derived values in a row
}

// newDerivedProgram is the program for d's derived quantities when d
// replays, its model has no generated block, and the recording's
// quantities have layout's names and sizes (and, with params, every free
// parameter is a number, a vector or a square matrix); ok is false
// otherwise.
func newDerivedProgram(d *Density, layout []DerivedValue, params bool) (*derivedProgram, bool) {
	if d.replay != replayOn || hasGenerated(d.c) || len(d.rec.derived) != len(layout) {
		return nil, false
	}
	p := &derivedProgram{d: d, params: params}
	for k := range d.rec.derived {
		sl := &d.rec.derived[k]
		n := sl.size()
		if !sl.ok || sl.name != layout[k].Name || sl.vector != layout[k].Vector || n != len(layout[k].Values) {
			return nil, false
		}
		p.width += n
	}
	if params {
		for k := range d.rec.params {
			sl := &d.rec.params[k]
			if !sl.ok {
				return nil, false
			}
			p.nPar += sl.size()
		}
	}
	return p, true
}

// row replays the program at the unconstrained point q and writes the
// derived quantities into out (width values, in layout order) and, with
// params, the constrained parameters into cons (nPar values). ok is false
// when the replay's checks fail: the draw must be walked.
func (p *derivedProgram) row(q, cons, out []float64) bool {
	rec := &p.d.rec
	t := rec.program
	if !t.Replay(rec.in, q) {
		return false
	}
	read(t, rec.derived, out)
	if p.params {
		read(t, rec.params, cons)
	}
	return true
}

// read writes the slots' values after a replay of t into out.
func read(t *ad.Tape, slots []derivedSlot, out []float64) {
	j := 0
	for k := range slots {
		sl := &slots[k]
		if !sl.onTape {
			j += copy(out[j:], sl.konst)
			continue
		}
		for _, v := range sl.vars {
			out[j] = t.Peek(v)
			j++
		}
	}
}

// hasGenerated reports a model with a generated block, whose random calls
// only a walk makes.
func hasGenerated(c *Compiled) bool {
	for _, st := range c.Model.Decl().Body {
		if _, ok := st.(*ast.Generated); ok {
			return true
		}
	}
	return false
}

// ChainDerived is one chain's derived quantities: Layout is its first
// draw's (walked), Rows its draws' values in that layout, one row of Width
// values after another, NaN where a draw's quantity had another length
// (its name in Ragged). With constraining asked for, Cons holds each
// draw's constrained parameters, NPar values a draw.
type ChainDerived struct {
	Layout []DerivedValue
	Width  int
	Rows   []float64
	Ragged map[string]bool
	NPar   int
	Cons   []float64
}

// DerivedChain computes the derived quantities of chain c's draws with d,
// and with constrain their constrained parameters (Compiled.Constrain):
// from the replayed program where it can (see above), else by walking.
// seedsAt is the generated block's stream of a draw. ctx is checked
// between draws; count is called after each draw.
func (d *Density) DerivedChain(ctx context.Context, c int, draws [][]float64, seedsAt func(c, i int) *rand.Rand, constrain bool, count func()) (*ChainDerived, error) {
	out := &ChainDerived{}
	if len(draws) == 0 {
		return out, nil
	}
	// A fresh Density decides on replay at its first evaluation.
	_, _ = d.Value(draws[0])
	first, err := d.DerivedAt(draws[0], seedsAt(c, 0))
	if err != nil {
		return out, err
	}
	out.Layout = first
	for _, dv := range first {
		out.Width += len(dv.Values)
	}
	var cons0 []float64
	if constrain {
		cons0 = d.c.Constrain(nil, draws[0])
		out.NPar = len(cons0)
		out.Cons = make([]float64, len(draws)*out.NPar)
	}
	if len(first) == 0 && !constrain {
		return out, nil
	}
	out.Rows = make([]float64, len(draws)*out.Width)
	prog, replay := newDerivedProgram(d, first, constrain)
	if replay {
		// The program's values must be the walk's, to the bit.
		flat := make([]float64, 0, out.Width)
		for _, dv := range first {
			flat = append(flat, dv.Values...)
		}
		if prog.nPar != out.NPar || !prog.row(draws[0], out.Cons[:out.NPar], out.Rows[:out.Width]) ||
			!linalg.SameBits(out.Rows[:out.Width], flat) || !linalg.SameBits(out.Cons[:out.NPar], cons0) {
			replay = false
		}
	}
	for i, q := range draws {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := out.Rows[i*out.Width : (i+1)*out.Width]
		cons := out.Cons[i*out.NPar : (i+1)*out.NPar : (i+1)*out.NPar]
		replayed := replay && prog.row(q, cons, row)
		if !replayed {
			vals, err := d.DerivedAt(q, seedsAt(c, i))
			if err != nil {
				return nil, err
			}
			out.fill(row, vals)
			if constrain {
				copy(cons, d.c.Constrain(cons[:0], q))
			}
		}
		if d.OnDerivedRow != nil {
			d.OnDerivedRow(replayed)
		}
		count()
	}
	return out, nil
}

// fill writes a walked draw's values into row in the chain's layout, NaN
// (and noted) for a quantity whose name or length differs.
func (cd *ChainDerived) fill(row []float64, vals []DerivedValue) {
	j := 0
	for k, dv := range cd.Layout {
		n := len(dv.Values)
		if k >= len(vals) || vals[k].Name != dv.Name || len(vals[k].Values) != n {
			if cd.Ragged == nil {
				cd.Ragged = map[string]bool{}
			}
			cd.Ragged[dv.Name] = true
			for x := range row[j : j+n] {
				row[j+x] = math.NaN()
			}
		} else {
			copy(row[j:j+n], vals[k].Values)
		}
		j += n
	}
}
