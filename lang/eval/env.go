package eval

import (
	"context"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/ast"
)

// Env maps names to values; scopes nest through parent. Builtins are not
// stored here: a name not found in any Env is looked up in the registry.
type Env struct {
	parent *Env
	vars   map[string]Value
}

// NewEnv makes an empty scope inside parent.
func NewEnv(parent *Env) *Env {
	return &Env{parent: parent, vars: map[string]Value{}}
}

// Lookup finds name in e or its parents.
func (e *Env) Lookup(name string) (Value, bool) {
	for ; e != nil; e = e.parent {
		if v, ok := e.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

// Define binds name in e.
func (e *Env) Define(name string, v Value) { e.vars[name] = v }

// maxDepth bounds recursion so a runaway fn is an error, not a crash.
const maxDepth = 2000

// Thread is one evaluation in progress: the interpreter it belongs to, its
// context and call depth. The sampler's chains each have their own Thread.
type Thread struct {
	in    *Interpreter
	ctx   context.Context
	depth int
	// seeds, when set, gives the seeds of random calls made without one
	// instead of the run's stream (a model's generated block, per draw).
	seeds *rand.Rand
	// forked marks a thread made by Fork (a model's density, evaluated
	// many times, often on several chains at once): it holds nothing in
	// flight in the ledger, whose lock it would otherwise take at every
	// call with a vector argument.
	forked bool
}

// SetSeeds makes random calls without a seed on th draw their seeds from r
// (nil: from the run's stream again).
func (th *Thread) SetSeeds(r *rand.Rand) { th.seeds = r }

func (in *Interpreter) newThread(ctx context.Context) *Thread {
	if ctx == nil {
		ctx = in.opts.Context
	}
	return &Thread{in: in, ctx: ctx}
}

// NewThread makes a thread of the interpreter's own for a Go caller (tests,
// embedders, lang/model); a nil ctx means the interpreter's Options.Context.
func (in *Interpreter) NewThread(ctx context.Context) *Thread { return in.newThread(ctx) }

// Expr evaluates e in env on th: lang/model evaluates a model's statements
// through it.
func (th *Thread) Expr(e ast.Expr, env *Env) (Value, error) { return th.expr(e, env) }

// Fork makes a thread for work that runs beside th (a sampler's chain): same
// interpreter and context, its own call depth and tape.
func (th *Thread) Fork() *Thread { return &Thread{in: th.in, ctx: th.ctx, forked: true} }

// Interp is the interpreter running this thread.
func (th *Thread) Interp() *Interpreter { return th.in }

// Context is the cancellation context of the run.
func (th *Thread) Context() context.Context { return th.ctx }

// cancelled returns the context's error at pos, if it is done.
func (th *Thread) cancelled(pos ast.Pos) error {
	if err := th.ctx.Err(); err != nil {
		return Interrupted(pos, err)
	}
	return nil
}

// step counts one call against Options.MaxSteps, failing at pos once the
// evaluation has made more. Threads of one evaluation (a parallel map)
// share the count.
func (th *Thread) step(pos ast.Pos) error {
	limit := th.in.opts.MaxSteps
	if limit <= 0 {
		return nil
	}
	if th.in.steps.Add(1) > limit {
		return ast.Errorf(pos, "the program made more than %d calls, its step budget (kml run --max-steps or kml.MaxSteps sets it)", limit)
	}
	return nil
}
