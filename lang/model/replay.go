package model

import (
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/runtime/ad"
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
}

// replayChecks is the number of points, near the first one, at which a
// replay is compared with a fresh walk before it is used.
const replayChecks = 3

// logDensity is LogDensity and Value: a replay when the Density has a
// program, else a walk (which may make one).
func (d *Density) logDensity(q, grad []float64) (float64, error) {
	if d.replay == replayOn {
		if lp, ok := d.replayAt(q, grad); ok {
			return lp, nil
		}
		return d.run(q, grad, false)
	}
	lp, err := d.run(q, grad, false)
	if d.replay == replayUndecided && err == nil && d.rec.done {
		d.decide(q, lp)
	}
	return lp, err
}

// decide makes the walk just recorded the Density's program if it is
// replayable and replays to the bit what fresh walks give at points near
// q; otherwise the Density walks from now on.
func (d *Density) decide(q []float64, lp float64) {
	if ok, _ := d.tape.Replayable(); d.c.NoReplay || !ok {
		d.replay = replayOff
		return
	}
	if math.IsInf(lp, 0) || math.IsNaN(lp) {
		return // undecided: a later point decides
	}
	// The recording becomes the program; walks get a tape of their own.
	d.rec.program, d.tape = d.tape, ad.NewTape()
	d.rec.in = append([]ad.Var(nil), d.in...)
	d.replay = replayOff
	n := len(q)
	p, g, h := make([]float64, n), make([]float64, n), make([]float64, n)
	r := rand.New(rand.NewPCG(15, uint64(n)))
	compared := 0
	for k := range replayChecks + 1 {
		copy(p, q)
		if k > 0 {
			for i := range p {
				p[i] += r.Float64() - 0.5
			}
		}
		walk, err := d.run(p, g, false)
		if err != nil || math.IsInf(walk, 0) || math.IsNaN(walk) {
			continue // a point the walk rejects says nothing of the replay
		}
		replayed, ok := d.replayAt(p, h)
		if !ok || math.Float64bits(walk) != math.Float64bits(replayed) {
			return
		}
		for i := range g {
			if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
				return
			}
		}
		compared++
	}
	if compared >= 2 {
		d.replay = replayOn
	}
}

// replayAt replays the program at q. ok is false when a walk must answer:
// a check inside the program failed, or the log density is not finite.
func (d *Density) replayAt(q, grad []float64) (float64, bool) {
	rec := &d.rec
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
