package ad

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
)

// Cause is what made a recording not replayable.
type Cause uint8

const (
	// ValueRead: a caller read a node's value out with Value.
	ValueRead Cause = iota + 1
	// Tainted: a caller called Taint.
	Tainted
	// OpaqueNode: Node was called with parents.
	OpaqueNode
	// OpenNode: Open was called.
	OpenNode
)

// NotReplayable says why a recording cannot be replayed: the first thing
// recorded on the tape that Replay could not do again.
type NotReplayable struct {
	Cause Cause
	// Var is the node read (ValueRead) or recorded (OpaqueNode,
	// OpenNode); −1 for Tainted.
	Var Var
	// Where is the file and line of the first caller outside runtime/ad
	// and lang/eval, the path relative to the module root
	// ("stdlib/kernels.go:123"); empty when no such caller was found.
	Where string
}

func (r *NotReplayable) String() string {
	var s string
	switch r.Cause {
	case ValueRead:
		s = fmt.Sprintf("the value of node %d is read", r.Var)
	case Tainted:
		s = "the recording is tainted"
	case OpaqueNode:
		s = fmt.Sprintf("an opaque node %d is recorded", r.Var)
	case OpenNode:
		s = fmt.Sprintf("an opaque node %d is opened", r.Var)
	}
	if r.Where != "" {
		s += " at " + r.Where
	}
	return s
}

// firstTaint is the first reason a recording is not replayable, kept as the
// program counters of its callers: resolving them to a file and line waits
// until Replayable asks, so recording pays only one runtime.Callers per
// recording, at its first such event.
type firstTaint struct {
	cause Cause
	v     Var
	n     int
	pcs   [24]uintptr
}

// note records the first reason the recording is not replayable.
func (t *Tape) note(c Cause, v Var) {
	if t.why.cause != 0 {
		return
	}
	t.why.cause, t.why.v = c, v
	t.why.n = runtime.Callers(2, t.why.pcs[:]) // from note's caller; where skips the tape's frames
}

// modulePrefix is what precedes a path inside the module in the file
// names the runtime reports: the module root's directory, or the module
// path under -trimpath.
var modulePrefix = func() string {
	_, file, _, _ := runtime.Caller(0)
	return strings.TrimSuffix(file, "runtime/ad/why.go")
}()

// internalPkgs are the packages whose frames are not the caller to blame:
// the tape itself and the interpreter's value layer.
var internalPkgs = []string{"github.com/kml-lang/kml/runtime/ad.", "github.com/kml-lang/kml/lang/eval."}

// where is the first caller outside runtime/ad and lang/eval.
func (w *firstTaint) where() string {
	frames := runtime.CallersFrames(w.pcs[:w.n])
	for {
		f, more := frames.Next()
		internal := f.Function == ""
		for _, p := range internalPkgs {
			if strings.HasPrefix(f.Function, p) && !strings.HasSuffix(f.File, "_test.go") {
				internal = true // a package's own tests are callers too
			}
		}
		if !internal && f.File != "" {
			return fmt.Sprintf("%s:%d", strings.TrimPrefix(f.File, modulePrefix), f.Line)
		}
		if !more {
			return ""
		}
	}
}

// Replayable reports whether Replay can compute every node of the
// recording again (no opaque nodes, no values read out by callers) and, if
// not, why: the first such node or read.
func (t *Tape) Replayable() (bool, *NotReplayable) {
	if t.why.cause == 0 {
		return true, nil
	}
	return false, &NotReplayable{Cause: t.why.cause, Var: t.why.v, Where: t.why.where()}
}

// Ancestors returns the nodes without parents (inputs and constants) that
// v is computed from, in increasing order, following scalar parents and
// the operands of vector operations.
func (t *Tape) Ancestors(v Var) []Var {
	seen := make([]bool, len(t.val))
	var out []Var
	stack := []Var{v}
	push := func(p Var) {
		if !seen[p] {
			seen[p] = true
			stack = append(stack, p)
		}
	}
	seen[v] = true
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t.kind[u] {
		case kConst:
			out = append(out, u)
		case kRun:
			for _, r := range t.runs {
				if Var(r.lo) <= u && u < Var(r.hi) {
					for _, vs := range r.op.operands() {
						for _, p := range vs {
							push(p)
						}
					}
					break
				}
			}
		default:
			for _, p := range t.par[t.off[u]:t.off[u+1]] {
				push(p)
			}
		}
	}
	slices.Sort(out)
	return out
}
