package eval

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kml-lang/kml/internal/relpath"
	"github.com/kml-lang/kml/internal/sandbox"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/grammar"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// DefaultSeed is the run's seed when none is given: runs are reproducible
// unless the user asks otherwise.
const DefaultSeed = 1

// Version is KML's release, recorded in the files it writes.
const Version = "0.1.0"

// Options configure an Interpreter. The zero value works: output to
// os.Stdout and os.Stderr, DefaultSeed, no file access, no cancellation.
type Options struct {
	Stdout, Stderr io.Writer
	// Seed seeds every random function called without `seed:`.
	Seed uint64
	// SeedSet says Seed was given (so 0 is a valid seed).
	SeedSet bool
	// Dirs are the directories a script may read and write.
	Dirs []string
	// BaseDir is where relative paths in a script resolve (the script's
	// directory for `kml run`); default the working directory.
	BaseDir string
	// Context cancels a running evaluation (a long fit) when done.
	Context context.Context
	// JSON makes `print` write each argument as a line of JSON.
	JSON bool
	// Progress lets long builtins (sample, the kernel tests, pc, tune,
	// ...) draw a progress line on Stderr: set it only when Stderr is a
	// terminal and the output is not read by a program (kml run --json).
	Progress bool
	// ProgressTo, when set, is where the progress line is drawn instead
	// of Stderr (a test passes a buffer standing for a terminal).
	ProgressTo io.Writer
	// OnProgress, when set, receives every drawing of the progress line,
	// and the end of each line, as an event (the Go API's callback, see
	// runtime/progress.Event), whether or not Progress draws the line.
	OnProgress func(progress.Event)
	// ProgressDelay is how long a computation runs before its line and
	// its first event appear: 0 is the default second, a negative value
	// no wait.
	ProgressDelay time.Duration
	// MaxMemory bounds the bytes the live values (the values bound and
	// those being computed with, see ledger.go) and a dense result about to
	// be allocated (a Gram matrix, a matrix product) may take together;
	// default DefaultMemoryBudget, half the machine's memory.
	MaxMemory int64
	// MaxSteps, when positive, bounds the calls one evaluation (an Eval, an
	// EvalFile, a REPL entry) may make — of fns and builtins alike, each
	// element of a map counted — so that a host can stop a script that
	// would run without end (a map over a huge range, an exponential
	// recursion) with a positioned error. A builtin's own work (a fit) is
	// one step: bound time with Context.
	MaxSteps int64
	// Registry supplies the builtins; default Builtins.
	Registry *Registry
	// NoReplay makes every evaluation of a model's log density walk the
	// model's statements instead of replaying its first recording
	// (lang/model), for comparison. cmd/kml and the kml package set it
	// when the environment has KML_REPLAY=0.
	NoReplay bool
	// KeepStmt, when set, runs only the top-level statements it keeps (by
	// position; all are checked): `kml check --explain` runs the slice of
	// a program its models need.
	KeepStmt func(pos ast.Pos) bool
}

// Interpreter runs KML source in a session: names bound by one Eval are
// visible to the next, as at the REPL. It is not safe for concurrent Evals.
type Interpreter struct {
	opts    Options
	reg     *Registry
	sandbox *sandbox.Sandbox
	checker *check.Checker
	scope   *check.Scope // the session's names, for checking
	env     *Env         // the session's values
	sources ast.Sources
	rng     *rand.Rand
	rngMu   sync.Mutex

	importing []string             // files being evaluated, innermost last
	parsed    map[string]*ast.File // imported files by key
	imported  map[string]*Env      // evaluated imports by key
	baseDirs  []string             // directory of each file being run, innermost last

	progress *progress.Reporter // nil unless Options.Progress

	runMu sync.Mutex
	run   *evaluation // the evaluation running now, nil between them (Interrupt)

	steps atomic.Int64 // calls made by the evaluation running now (MaxSteps)

	ledger *ledger // the bytes live values hold, for the memory budget
}

// New makes an interpreter.
func New(opts Options) *Interpreter {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	if !opts.SeedSet && opts.Seed == 0 {
		opts.Seed = DefaultSeed
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	if opts.BaseDir == "" {
		opts.BaseDir, _ = os.Getwd()
	}
	if opts.MaxMemory <= 0 {
		opts.MaxMemory = DefaultMemoryBudget()
	}
	reg := opts.Registry
	if reg == nil {
		reg = Builtins
	}
	in := &Interpreter{
		opts:     opts,
		reg:      reg,
		sandbox:  sandbox.NewSandbox(opts.Dirs...),
		sources:  ast.Sources{},
		rng:      rng.New(opts.Seed, rng.Interpreter),
		parsed:   map[string]*ast.File{},
		imported: map[string]*Env{},
		ledger:   newLedger(),
	}
	if opts.Progress || opts.OnProgress != nil {
		var w io.Writer
		if opts.Progress {
			w = in.ProgressWriter()
		}
		in.progress = progress.New(w)
		in.progress.Sink = opts.OnProgress
		if opts.ProgressDelay != 0 {
			in.progress.Delay = max(0, opts.ProgressDelay)
		}
	}
	in.checker = &check.Checker{Universe: reg, Importer: importer{in}}
	in.scope = check.NewScope(in.checker.Root())
	in.env = NewEnv(nil)
	return in
}

// Options returns the interpreter's settings.
func (in *Interpreter) Options() Options { return in.opts }

// Stdout is where `print` writes.
func (in *Interpreter) Stdout() io.Writer { return in.opts.Stdout }

// Stderr is where warnings and progress go.
func (in *Interpreter) Stderr() io.Writer { return in.opts.Stderr }

// ProgressWriter is where progress is drawn (Options.ProgressTo, default
// Stderr); only meaningful when Options.Progress is set.
func (in *Interpreter) ProgressWriter() io.Writer {
	if in.opts.ProgressTo != nil {
		return in.opts.ProgressTo
	}
	return in.opts.Stderr
}

// Progress is the reporter long builtins draw their line with (nil when the
// run draws no progress); a test may change its Delay and clock.
func (in *Interpreter) Progress() *progress.Reporter { return in.progress }

// Sandbox is the set of directories scripts may use.
func (in *Interpreter) Sandbox() *sandbox.Sandbox { return in.sandbox }

// BaseDir is the directory relative paths resolve against: the directory of
// the file being run.
func (in *Interpreter) BaseDir() string {
	if n := len(in.baseDirs); n > 0 {
		return in.baseDirs[n-1]
	}
	return in.opts.BaseDir
}

// Sources holds the text of every file the interpreter has read, so errors
// can be printed with their source line.
func (in *Interpreter) Sources() ast.Sources { return in.sources }

// Registry is the interpreter's set of builtins.
func (in *Interpreter) Registry() *Registry { return in.reg }

// nextSeed draws a seed from the run's stream for a random function called
// without `seed:`.
func (in *Interpreter) nextSeed() uint64 {
	in.rngMu.Lock()
	defer in.rngMu.Unlock()
	return in.rng.Uint64()
}

// Check parses and checks src without running it.
func (in *Interpreter) Check(filename, src string) error {
	in.sources[filename] = src
	f, err := grammar.Parse(filename, src)
	if err != nil {
		return err
	}
	return in.checker.File(f, check.NewScope(in.scope))
}

// Eval parses, checks and runs src in the session and returns the value of
// its last statement when that is an expression (NoneValue otherwise).
// Syntax and check errors come back as an ast.ErrorList (nothing has run);
// a runtime error as an *ast.Error, whose Stack lists the fn calls it came
// through and whose Cause (reached with errors.Is and errors.As) is the Go
// error behind it, context.Canceled for a cancelled run. Names bound before
// a runtime error stay bound, as at any REPL.
func (in *Interpreter) Eval(filename, src string) (Value, error) {
	return in.EvalContext(in.opts.Context, filename, src)
}

// EvalContext is Eval with its own cancellation context (an embedder's
// deadline for one call). ctx must not be nil: Eval runs under the
// interpreter's. Interrupt stops the evaluation from another goroutine.
func (in *Interpreter) EvalContext(ctx context.Context, filename, src string) (Value, error) {
	if ctx == nil {
		panic("eval: EvalContext with a nil Context")
	}
	ctx, end := in.begin(ctx)
	defer end()
	in.sources[filename] = src
	f, err := grammar.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	scope := check.NewScope(in.scope)
	if err := in.checker.File(f, scope); err != nil {
		return nil, err
	}
	env := NewEnv(in.env)
	th := in.newThread(ctx)
	run := f.Stmts
	if keep := in.opts.KeepStmt; keep != nil {
		run = nil
		for _, st := range f.Stmts {
			if keep(st.Pos()) {
				run = append(run, st)
			}
		}
	}
	v, err := th.stmts(run, env, true)
	// Merge what this input bound into the session, so the next input sees it.
	for _, b := range scope.Bindings() {
		in.scope.Define(b)
	}
	for name, val := range env.vars {
		in.env.vars[name] = val
		in.ledger.move(env, in.env, name)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// EvalFile runs a file; relative paths inside it resolve against its
// directory.
func (in *Interpreter) EvalFile(path string) (Value, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, err
	}
	in.pushBase(path)
	defer in.popBase()
	return in.Eval(path, src)
}

// CheckFile parses and checks a file without running it.
func (in *Interpreter) CheckFile(path string) error {
	src, err := ReadSource(path)
	if err != nil {
		return err
	}
	in.pushBase(path)
	defer in.popBase()
	return in.Check(path, src)
}

func (in *Interpreter) pushBase(file string) {
	dir, err := filepath.Abs(filepath.Dir(file))
	if err != nil {
		dir = filepath.Dir(file)
	}
	in.baseDirs = append(in.baseDirs, dir)
}

func (in *Interpreter) popBase() { in.baseDirs = in.baseDirs[:len(in.baseDirs)-1] }

// Lookup returns the session's value of name.
func (in *Interpreter) Lookup(name string) (Value, bool) {
	return in.env.Lookup(name)
}

// Define binds name to v in the session, replacing an earlier binding.
func (in *Interpreter) Define(name string, v Value) error {
	if !validName(name) {
		return fmt.Errorf("%q is not a valid KML name", name)
	}
	in.env.vars[name] = v
	in.ledger.bind(in.env, name, v)
	in.scope.Define(&check.Binding{Name: name, Kind: check.Let})
	return nil
}

// Names lists every name visible in the session, builtins included.
func (in *Interpreter) Names() []string { return in.scope.Visible() }

func validName(name string) bool {
	if name == "" || grammar.IsKeyword(name) {
		return false
	}
	e, err := grammar.ParseExpr("<name>", name)
	if err != nil {
		return false
	}
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// importer loads imported files for the checker, resolving paths against the
// importing file's directory and keeping to the sandbox.
type importer struct{ in *Interpreter }

func (im importer) Import(pos ast.Pos, path string) (string, *ast.File, error) {
	in := im.in
	base := in.BaseDir()
	if pos.File != "" && pos.File != "<input>" {
		if abs, err := filepath.Abs(filepath.Dir(pos.File)); err == nil {
			base = abs
		}
	}
	real, err := in.sandbox.ReadPath(base, path)
	if err != nil {
		msg := "cannot import: " + err.Error()
		if near := in.NearbyFile(base, path); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return "", nil, &ast.Error{Pos: pos, Msg: msg}
	}
	if f, ok := in.parsed[real]; ok {
		return real, f, nil
	}
	// Read through the sandbox's root, so that no link swapped in since the
	// check above leads outside; its errors name the file as written.
	data, err := in.sandbox.ReadFileLimit(base, path, MaxSource)
	if err != nil {
		return "", nil, &ast.Error{Pos: pos, Msg: "cannot import: " + relpath.Err(err).Error()}
	}
	src := string(data)
	// Errors in the imported file name it as the user wrote it, relative.
	name := filepath.Join(filepath.Dir(pos.File), path)
	if filepath.IsAbs(path) || pos.File == "" {
		name = path
	}
	in.sources[name] = src
	f, err := grammar.Parse(name, src)
	if err != nil {
		return "", nil, err
	}
	in.parsed[real] = f
	in.parsed[name] = f
	return real, f, nil
}

// NearbyFile is the file beside path (resolved against base) whose name is
// nearest to path's, a typo or a different case, written as path with that
// name, or "": the "did you mean" of a missing file. It looks only inside
// the sandbox.
func (in *Interpreter) NearbyFile(base, path string) string {
	name, siblings := filepath.Base(path), in.sandbox.Siblings(base, path)
	near := ""
	for _, s := range siblings {
		if strings.EqualFold(s, name) {
			near = s
			break
		}
	}
	if near == "" {
		near = check.Closest(name, siblings)
	}
	if near == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(path), near)
}

// Key is the key Import gives file, so that a file importing itself is
// seen as a cycle; "" for input that is no file.
func (im importer) Key(file string) string {
	if file == "" || file == "<input>" {
		return ""
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return ""
	}
	return real
}

// EvalFileContext is EvalFile with its own cancellation context.
func (in *Interpreter) EvalFileContext(ctx context.Context, path string) (Value, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, err
	}
	in.pushBase(path)
	defer in.popBase()
	return in.EvalContext(ctx, path, src)
}
