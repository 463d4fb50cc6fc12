package kml

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/hmc"
	"github.com/kml-lang/kml/runtime/progress"
	_ "github.com/kml-lang/kml/stdlib" // registers the builtins
)

// Interpreter is a KML session: names bound by one Eval are visible to the
// next. It is not safe for concurrent use.
type Interpreter struct {
	in *eval.Interpreter
	n  int
}

// Option configures an Interpreter.
type Option func(*eval.Options)

// Stdout sets where print writes (default os.Stdout).
func Stdout(w io.Writer) Option { return func(o *eval.Options) { o.Stdout = w } }

// Stderr sets where warnings go (default os.Stderr).
func Stderr(w io.Writer) Option { return func(o *eval.Options) { o.Stderr = w } }

// Seed sets the seed of random functions called without `seed:`.
func Seed(seed uint64) Option {
	return func(o *eval.Options) { o.Seed, o.SeedSet = seed, true }
}

// Dirs grants the script read and write access to dirs (and everything
// below them). Relative paths in the script resolve against the first.
func Dirs(dirs ...string) Option {
	return func(o *eval.Options) {
		o.Dirs = append(o.Dirs, dirs...)
		if o.BaseDir == "" && len(dirs) > 0 {
			o.BaseDir = dirs[0]
		}
	}
}

// Context is the interpreter's own context: every Eval and EvalFile runs
// under it, so once it is done every later call fails with "interrupted".
// To cancel or time out one call and keep the interpreter, use EvalContext.
func Context(ctx context.Context) Option { return func(o *eval.Options) { o.Context = ctx } }

// MaxMemory bounds the bytes the interpreter's live values (the values
// bound and those being computed with) and a result about to be allocated
// (a Gram matrix, a matrix product) may take together: a script that asks
// for more gets an error saying what to do instead. Default half the
// machine's memory. It bounds what the interpreter counts, not the
// process: a host that wants Go's collector to keep the heap near the
// budget sets runtime/debug.SetMemoryLimit too, as kml run does.
func MaxMemory(bytes int64) Option { return func(o *eval.Options) { o.MaxMemory = bytes } }

// MaxSteps bounds the calls (of fns and builtins, each element of a map
// counted) one Eval or EvalFile may make: past n the call fails with a
// positioned error, so a host can stop a script that would run without end.
// A builtin's own work is one step; bound time with Context. 0, the
// default, is no bound.
func MaxSteps(n int64) Option { return func(o *eval.Options) { o.MaxSteps = n } }

// JSON makes print write each argument as a line of JSON.
func JSON(on bool) Option { return func(o *eval.Options) { o.JSON = on } }

// ProgressEvent is one report of a long computation's progress: the
// builtin (Name, "mmd_test"), what it counts (What, "permutations"; empty
// when the line says more, as sample's and optimize's do), the steps done
// of Total (0 when not known ahead), the time it has run, the line a
// terminal shows after "NAME: " ("permutations 4096/100000 (4%)  1m10s
// left"), and End on the last event of a computation, when its line is
// erased.
type ProgressEvent = progress.Event

// Progress hands the progress of every long builtin (sample, optimize,
// the kernel tests, pc, tune, kfold, ...) to f, as a terminal's progress
// line shows it: a computation that runs longer than after reports at most
// ten times a second, at least twice a second while it runs (with its time
// even before its first step ends), and once more with End set when it
// ends. after ≤ 0 reports from the start (a terminal waits a second). A
// builtin called inside another (the tests of pc) reports through the
// outer one only. f is called on the computation's goroutines, one call at
// a time; it must return quickly and must not call the interpreter.
func Progress(f func(ProgressEvent), after time.Duration) Option {
	return func(o *eval.Options) {
		o.OnProgress = f
		o.ProgressDelay = after
		if after <= 0 {
			o.ProgressDelay = -1
		}
	}
}

// Builtins sets the builtins a script may call (default: the whole
// library). Make r with eval.NewRegistry and fill it with the Register of
// each stdlib domain wanted: leaving out stdlib/files and stdlib/plot gives
// scripts no file input or output and no pictures. (This package links the
// whole library; a Go program that must not link gonum/plot uses
// lang/eval's Interpreter with such a registry directly.)
func Builtins(r *eval.Registry) Option { return func(o *eval.Options) { o.Registry = r } }

// New makes an interpreter.
func New(opts ...Option) *Interpreter {
	// KML_REPLAY=0 in the environment makes models walk at every
	// evaluation instead of replaying their recording (docs/language.md).
	o := eval.Options{NoReplay: os.Getenv("KML_REPLAY") == "0"}
	for _, opt := range opts {
		opt(&o)
	}
	return &Interpreter{in: eval.New(o)}
}

// Set binds name to a Go value: float64 (and integers), bool, string,
// []float64, *mat.Dense (rows are observations), []any, []string or
// map[string]any.
func (it *Interpreter) Set(name string, v any) error {
	kv, err := FromGo(v)
	if err != nil {
		return err
	}
	return it.in.Define(name, kv)
}

// Get returns the value bound to name as a Go value: float64, bool,
// string, []float64, *mat.Dense, map[string]any or []any; a posterior as
// *Posterior and a summary as *Summary.
func (it *Interpreter) Get(name string) (any, error) {
	v, ok := it.in.Lookup(name)
	if !ok {
		return nil, errors.New("kml: " + name + " is not bound")
	}
	return ToGo(v)
}

// Eval runs src and returns the value of its last statement when that is
// an expression (converted as Get does), or nil.
func (it *Interpreter) Eval(src string) (any, error) {
	return it.EvalContext(it.in.Options().Context, src)
}

// EvalContext is Eval under ctx: when ctx is cancelled or its deadline
// passes, the running statement (a fit, a test) stops and the error
// satisfies errors.Is(err, context.Canceled) or
// errors.Is(err, context.DeadlineExceeded). The interpreter stays usable,
// with the names bound before the interruption.
func (it *Interpreter) EvalContext(ctx context.Context, src string) (any, error) {
	it.n++
	name := "<eval>"
	if it.n > 1 {
		name = "<eval " + itoa(it.n) + ">"
	}
	v, err := it.in.EvalContext(ctx, name, src)
	if err != nil {
		return nil, err
	}
	if v == eval.NoneValue {
		return nil, nil
	}
	return ToGo(v)
}

// EvalFile runs a file; relative paths in it resolve against its directory
// (which must also be granted with Dirs for the script to read there).
func (it *Interpreter) EvalFile(path string) error {
	_, err := it.in.EvalFile(path)
	return err
}

// EvalFileContext is EvalFile under ctx, as EvalContext is Eval.
func (it *Interpreter) EvalFileContext(ctx context.Context, path string) error {
	_, err := it.in.EvalFileContext(ctx, path)
	return err
}

// Interrupt stops the call running now, from another goroutine, as Ctrl-C
// stops `kml run`: its loops at their next check and a dense factorisation
// or product inside gonum (chol, inv, a fit's Cholesky) at its next block,
// which a cancelled context does not cut short. The call fails with an
// "interrupted" error that satisfies errors.Is(err, context.Canceled).
// Only this interpreter's call stops: other interpreters in the program,
// and this one's next call, run on.
func (it *Interpreter) Interrupt() { it.in.Interrupt() }

// Posterior is what Get returns for the result of sample: the draws of every
// parameter on the constrained scale, chain by chain, with the sampler's
// statistics per draw and its adaptation, and the summary.
type Posterior = infer.GoPosterior

// Summary is what Get returns for the result of summary (and the Summary of
// a Posterior): per-parameter statistics, diagnostics and warnings.
type Summary = hmc.Summary

// Check parses and checks src without running it.
func (it *Interpreter) Check(src string) error {
	return it.in.Check("<check>", src)
}

// FormatError renders an error from Eval, EvalFile or Check as the command
// line does: "FILE:LINE:COL: error: message", the source line and a caret.
func (it *Interpreter) FormatError(err error) string {
	var b bytes.Buffer
	it.in.Sources().Print(&b, err)
	return b.String()
}

// IsSyntaxError reports an error found before anything ran (syntax or
// check), as opposed to a runtime error.
func IsSyntaxError(err error) bool {
	var list ast.ErrorList
	return errors.As(err, &list)
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
