package model

import (
	"fmt"
	"math"
	"strings"

	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// A model compiles once: the tape the first walk of the model records is
// the program for later gradients. When the recording is replayable (every
// node computed by a tape operation, no tape value read out to decide with)
// and passes a check, LogDensity and Value replay it at the new point —
// no walk of the model's statements, no builtins called, nothing
// allocated. Otherwise, or when a replayed log density is not finite (so
// that errors, warnings and −Inf rejections are the walk's), the model is
// walked as before. The other run modes (Families, Check, derived
// quantities, constraining) always walk.

// replayState says whether a Density replays its recording.
type replayState uint8

const (
	replayUndecided replayState = iota // no complete, finite walk yet
	replayOn
	replayOff
	// replayVerifying: an Optimizing Density has a program and compares
	// its replays with walks at the points it is asked for.
	replayVerifying
)

// recording is what a complete walk leaves for replay: the log density is
// konst + out's value (konst alone without terms).
type recording struct {
	done    bool // the walk reached the end of the model
	out     ad.Var
	hasOut  bool
	konst   float64
	in      []ad.Var
	program *ad.Tape
	// derived are the derived quantities as this walk computed them, and
	// params the free parameters' constrained values (derivedprog.go).
	derived []derivedSlot
	params  []derivedSlot
}

// replayChecks is the number of points, near the first one, at which a
// replay is compared with a fresh walk before it is used.
const replayChecks = 3

// logDensity is LogDensity and Value: a replay when the Density has a
// program, else a walk (which may make one).
func (d *Density) logDensity(q, grad []float64) (float64, error) {
	switch d.replay {
	case replayOn:
		if lp, ok := d.memo.get(q, grad); ok {
			return lp, nil
		}
		if lp, ok := d.replayAt(q, grad); ok {
			d.memo.put(q, lp, grad)
			return lp, nil
		}
		return d.run(q, grad, Watch{})
	case replayVerifying:
		return d.verifyAt(q, grad)
	}
	lp, err := d.run(q, grad, Watch{})
	if d.replay == replayUndecided && err == nil && d.rec.done {
		if d.inPlace {
			d.startVerify(q, grad, lp)
		} else {
			d.decide(q, lp)
		}
	}
	return lp, err
}

// Optimizing sets d up for an optimiser, which evaluates points close to
// one another and comes back to some of them (the start, the optimum for
// the checks after the fit). Replay is then verified at the optimiser's
// own points rather than at invented ones: the walk that records and the
// next replayChecks points with a finite log density are each walked and
// replayed, and must agree to the bit, before d replays (a walk answers
// each of them, so a verified replay costs one replay a point, not a walk
// and a replay at each of four fresh points). And d remembers the log
// density and gradient at the last memoSize points it has replayed or
// verified, returning them, bit for bit what a replay gives, when one is
// asked for again. Its families may keep state between evaluations
// (Eval.Local). Call it before the first evaluation.
func (d *Density) Optimizing() {
	d.inPlace = true
	d.memo.on = true
	d.ev.optimizing = true
}

// startVerify makes the walk just recorded at q (log density lp, gradient
// in grad unless grad is nil) the Density's program, if it is replayable,
// and compares a replay at q with it; verifyAt then compares the next
// points. As decide, it leaves the Density undecided when lp is not
// finite and walking when replay is off or the recording is not
// replayable.
func (d *Density) startVerify(q, grad []float64, lp float64) {
	if !d.replayable(lp) {
		return
	}
	d.replay = replayVerifying
	d.compare(q, grad, lp)
}

// verifyAt answers an evaluation at q while replay is being verified:
// from the memo (a point already verified), else by a walk, which a replay
// at q is compared with.
func (d *Density) verifyAt(q, grad []float64) (float64, error) {
	if lp, ok := d.memo.get(q, grad); ok {
		return lp, nil
	}
	lp, err := d.run(q, grad, Watch{})
	if err != nil || math.IsInf(lp, 0) || math.IsNaN(lp) {
		return lp, err // a point the walk rejects says nothing of the replay
	}
	d.compare(q, grad, lp)
	return lp, nil
}

// compare replays the program at q and compares the log density, and the
// gradient when grad is not nil, with a walk's (lp and grad), to the bit.
// A difference makes the Density walk from now on; a point compared with
// its gradient counts towards replayChecks + 1, and then the Density
// replays.
func (d *Density) compare(q, grad []float64, lp float64) {
	var h []float64
	if grad != nil {
		h = d.memo.scratch(len(grad))
	}
	replayed, ok := d.replayAt(q, h)
	if !ok || math.Float64bits(lp) != math.Float64bits(replayed) {
		d.replay, d.status = replayOff, "walked: the replay differs from a walk at a point the optimiser evaluated"
		d.memo.clear()
		return
	}
	for i := range grad {
		if math.Float64bits(grad[i]) != math.Float64bits(h[i]) {
			d.replay, d.status = replayOff, "walked: the replayed gradient differs from a walk's at a point the optimiser evaluated"
			d.memo.clear()
			return
		}
	}
	d.memo.put(q, lp, grad)
	if grad == nil {
		return
	}
	if d.verified++; d.verified > replayChecks {
		d.replay, d.status = replayOn, "replayed"
		return
	}
	d.status = fmt.Sprintf("not decided yet: the replay has agreed with the walk at %d of the %d points it is checked at", d.verified, replayChecks+1)
}

// replayable decides what both decide and startVerify decide first: a
// Density with replay turned off, or whose recording is not replayable,
// walks from now on, and one whose first log density lp is not finite
// stays undecided; otherwise (true) the recording becomes the program and
// walks get a tape of their own.
func (d *Density) replayable(lp float64) bool {
	if d.c.NoReplay {
		d.replay, d.status = replayOff, "walked: replay is turned off (KML_REPLAY=0)"
		return false
	}
	if ok, why := d.tape.Replayable(); !ok {
		d.replay, d.status = replayOff, "walked: "+d.explain(why)
		return false
	}
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		d.status = "not decided yet: the log density at the first point is not finite"
		return false // undecided: a later point decides
	}
	d.rec.program, d.tape = d.tape, ad.NewTape()
	d.rec.in = append([]ad.Var(nil), d.in...)
	return true
}

// memoSize is how many points an Optimizing Density remembers: the start
// (which L-BFGS evaluates again after the search for a finite start has)
// and the last few points of the search, among them the optimum that the
// checks after the fit evaluate again. Each holds a copy of the point and
// of the gradient.
const memoSize = 4

// pointMemo holds the log density and gradient at the last memoSize
// points replayed (or verified): a replay is a function of the point
// alone, so they are what a replay there gives. Entries are overwritten
// oldest first.
type pointMemo struct {
	on      bool
	entries [memoSize]memoEntry
	n, next int
	h       []float64 // compare's replayed gradient
}

type memoEntry struct {
	q, grad []float64
	lp      float64
	hasGrad bool
}

// get returns the remembered log density at q, with its gradient copied
// into grad when grad is not nil (a point remembered without its gradient
// is then missed).
func (m *pointMemo) get(q, grad []float64) (float64, bool) {
	if !m.on {
		return 0, false
	}
	for i := range m.n {
		e := &m.entries[i]
		if (grad == nil || e.hasGrad) && linalg.SameBits(e.q, q) {
			copy(grad, e.grad)
			return e.lp, true
		}
	}
	return 0, false
}

// put remembers lp (and grad unless nil) at q.
func (m *pointMemo) put(q []float64, lp float64, grad []float64) {
	if !m.on {
		return
	}
	e := &m.entries[m.next]
	e.q = append(e.q[:0], q...)
	e.grad = append(e.grad[:0], grad...)
	e.lp, e.hasGrad = lp, grad != nil
	m.next = (m.next + 1) % memoSize
	m.n = max(m.n, m.next)
	if m.next == 0 {
		m.n = memoSize
	}
}

func (m *pointMemo) clear() { m.n, m.next = 0, 0 }

// scratch is a buffer of n for compare's replayed gradient.
func (m *pointMemo) scratch(n int) []float64 {
	if cap(m.h) < n {
		m.h = make([]float64, n)
	}
	return m.h[:n]
}

// decide makes the walk just recorded the Density's program if it is
// replayable and replays to the bit what fresh walks give at points near
// q; otherwise the Density walks from now on. Either way d.status says
// which, and why.
func (d *Density) decide(q []float64, lp float64) {
	if !d.replayable(lp) {
		return
	}
	d.replay = replayOff
	n := len(q)
	p, g, h := make([]float64, n), make([]float64, n), make([]float64, n)
	r := rng.New(uint64(n), rng.ReplayCheck)
	compared := 0
	for k := range replayChecks + 1 {
		copy(p, q)
		if k > 0 {
			for i := range p {
				p[i] += r.Float64() - 0.5
			}
		}
		walk, err := d.run(p, g, Watch{})
		if err != nil || math.IsInf(walk, 0) || math.IsNaN(walk) {
			continue // a point the walk rejects says nothing of the replay
		}
		replayed, ok := d.replayAt(p, h)
		if !ok || math.Float64bits(walk) != math.Float64bits(replayed) {
			d.status = "walked: the replay differs from a fresh walk near the first point"
			return
		}
		for i := range g {
			if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
				d.status = "walked: the replayed gradient differs from a fresh walk's near the first point"
				return
			}
		}
		compared++
	}
	if compared >= 2 {
		d.replay, d.status = replayOn, "replayed"
		return
	}
	d.status = "walked: too few points near the first could be compared with a walk"
}

// explain is why as a sentence for the user, naming the parameters the
// node involved is computed from.
func (d *Density) explain(why *ad.NotReplayable) string {
	var s string
	switch why.Cause {
	case ad.ValueRead:
		switch from := d.paramsOf(why.Var); len(from) {
		case 0:
			s = "a value on the tape is read"
		case 1:
			s = "the value of " + from[0] + " is read"
		default:
			s = "a value computed from " + andList(from) + " is read"
		}
	case ad.OpaqueNode, ad.OpenNode:
		s = "an opaque node is recorded"
		if from := d.paramsOf(why.Var); len(from) > 0 {
			s += " on " + andList(from)
		}
	case ad.Tainted:
		s = "a decision on a value computed from parameters is taken"
	default:
		s = "the recording is not replayable"
	}
	if why.Where != "" {
		s += " at " + why.Where
	}
	return s
}

// paramsOf names the free parameters whose inputs v is computed from, in
// declaration order.
func (d *Density) paramsOf(v ad.Var) []string {
	if v < 0 {
		return nil
	}
	index := make(map[ad.Var]int, len(d.in))
	for i, x := range d.in {
		index[x] = i
	}
	uses := map[int]bool{}
	for _, a := range d.tape.Ancestors(v) {
		if i, ok := index[a]; ok {
			uses[i] = true
		}
	}
	var out []string
	for _, sl := range d.c.slots {
		if sl.off < 0 {
			continue
		}
		for i := sl.off; i < sl.off+sl.free(); i++ {
			if uses[i] {
				out = append(out, sl.param.Name)
				break
			}
		}
	}
	return out
}

// andList is "a", "a and b", "a, b and c".
func andList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return fmt.Sprintf("%s and %s", strings.Join(xs[:len(xs)-1], ", "), xs[len(xs)-1])
}

// replayAt replays the program at q. ok is false when a walk must answer:
// a check inside the program failed, or the log density is not finite.
func (d *Density) replayAt(q, grad []float64) (float64, bool) {
	rec := &d.rec
	d.c.evals.Add(1)
	t := rec.program
	if !t.Replay(rec.in, q) {
		return 0, false
	}
	total := rec.konst
	if rec.hasOut {
		total += t.Peek(rec.out)
	}
	if math.IsInf(total, 0) || math.IsNaN(total) {
		return 0, false
	}
	if grad != nil {
		if rec.hasOut {
			t.Gradient(grad, rec.out, rec.in)
		} else {
			clear(grad)
		}
	}
	return total, true
}

// Replaying reports whether LogDensity and Value replay a recording (a
// test's view of the decision).
func (d *Density) Replaying() bool { return d.replay == replayOn }

// ReplayStatus says, once the Density has been evaluated, whether it
// replays its recording ("replayed") or walks the model at every
// evaluation, and why: "walked: the value of ell is read at
// stdlib/kernels.go:123". The position is the first caller outside
// runtime/ad and lang/eval that read a tape value or recorded an opaque
// node.
func (d *Density) ReplayStatus() string {
	if d.status == "" {
		return "not decided yet: the model has not been evaluated to its end"
	}
	return d.status
}
