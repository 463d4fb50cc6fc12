package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/chzyer/readline"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/lsp"
	"github.com/kml-lang/kml/lang/repl"
	"github.com/kml-lang/kml/runtime/isa"
	_ "github.com/kml-lang/kml/stdlib"
)

// version is the release of this command.
const version = eval.Version

// Exit statuses.
const (
	exitOK      = 0
	exitRuntime = 1
	exitStatic  = 2   // syntax, check or usage errors
	exitSignal  = 130 // interrupted by SIGINT or SIGTERM, as a shell reports it
)

const usage = `KML — a language for Bayesian kernel methods.

Usage:
  kml run FILE.kml [--seed N] [--json] [--allow DIR]... [--max-memory SIZE] [--max-steps N]   run a program
  kml check FILE.kml                                       parse and check without running
  kml check --explain FILE.kml   also say, for each model, whether its gradient
                                 replays the first recording or walks the model, and why
  kml fmt [-w] [-d] FILE.kml...  print in the canonical layout; -w rewrites, -d diffs (exit 1)
  kml repl [--allow DIR]...              the interactive prompt (also: kml on a terminal)
  kml lsp                                a language server on stdin/stdout, for editors
  kml jupyter install [--user|--prefix DIR]   install the Jupyter kernel (kml jupyter kernel)
  kml version                            print the version, and the vector path
                                         (isa: ..., see KML_CPU) with the CPU model
  kml help                               print this help

run options:
  --seed N   seed for random functions called without seed: (default 1)
  --json     print writes each argument as a line of JSON
  --allow DIR  let the script read and write DIR too (repeatable); by default
               it may use only its own directory and what is below it (for
               repl, the working directory; :load runs only files it may read)
  --max-memory SIZE  the most the live values and a result being made
               (a Gram matrix, a product) may take together, e.g. 2GB
               (default half the machine's memory)
  --max-steps N  the most calls (of fns and builtins, each element of a map)
               the program may make (default no bound)
  --cpuprofile FILE  write a CPU profile of the run to FILE (relative to the
               working directory; also when the script fails or is
               interrupted); read it with go tool pprof -top FILE
  --memprofile FILE  write a memory (allocation) profile at the end, likewise

check --explain runs only the statements the file's models need (no fit, no
output), takes one gradient of each model at the origin, and prints
"model NAME: replayed" or "model NAME: walked: REASON".

Exit status: 0 success, 1 runtime error (also a file that cannot be read),
2 syntax, check or usage error,
130 interrupted (Ctrl-C or SIGTERM: the running statement stops and is reported;
a second Ctrl-C ends kml at once).

Environment: KML_CPU=generic|avx2|avx512 caps the vector code the numerical
kernels use (never above what the CPU has; another value is an error, exit 2).

On a terminal, long builtins (sample, kernel tests, pc, cv, tune, bkl) draw a
progress line on stderr; never under --json or when stderr is not a terminal.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// noReplay reports whether KML_REPLAY=0 asks models to be walked at every
// evaluation instead of replayed (docs/language.md).
func noReplay() bool { return os.Getenv("KML_REPLAY") == "0" }

// terminal reports whether f is an interactive terminal.
func terminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && readline.IsTerminal(int(file.Fd()))
}

// run is the command, with its streams passed in so tests can drive it.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "error: internal error: %v\n", r)
			fmt.Fprintln(stderr, "note: this is a bug in KML; please report it with the program that caused it")
			if os.Getenv("KML_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			status = exitRuntime
		}
	}()
	if err := isa.EnvErr(); err != nil {
		// A mistyped KML_CPU must not silently measure another path.
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitStatic
	}
	if len(args) == 0 {
		if terminal(stdin) {
			return runREPL(nil, stdin, stdout, stderr)
		}
		fmt.Fprint(stderr, usage)
		return exitStatic
	}
	switch args[0] {
	case "run":
		return runFile(args[1:], stdout, stderr)
	case "check":
		return checkFile(args[1:], stdout, stderr)
	case "fmt":
		return fmtFiles(args[1:], stdin, stdout, stderr)
	case "repl":
		allowed, ok := replOptions(args[1:], stderr)
		if !ok {
			return exitStatic
		}
		return runREPL(allowed, stdin, stdout, stderr)
	case "lsp":
		// The registry stdlib.Register filled (this package imports
		// stdlib, whose init registers into eval.Builtins).
		if err := lsp.Serve(lsp.Config{Registry: eval.Builtins, In: stdin, Out: stdout, Log: stderr}); err != nil {
			fmt.Fprintf(stderr, "error: kml lsp: %v\n", err)
			return exitRuntime
		}
		return exitOK
	case "jupyter":
		return runJupyter(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "kml version %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		fmt.Fprintln(stdout, isa.Describe())
		return exitOK
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "error: unknown command %q\n\n%s", args[0], usage)
	return exitStatic
}

// runOptions parses `FILE [--seed N] [--json] [--allow DIR]...` in any
// order, and grants the script its own directory and the --allow ones.
func runOptions(cmd string, args []string, stderr io.Writer, allowRunFlags bool) (file string, opts eval.Options, ok bool) {
	var allowed []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		flag := strings.HasPrefix(a, "-")
		if flag && !hasVal && (name == "seed" || name == "allow" || name == "max-memory" || name == "max-steps") && allowRunFlags {
			if i+1 >= len(args) {
				fmt.Fprintf(stderr, "error: --%s needs a value\n", name)
				return "", opts, false
			}
			i++
			val = args[i]
		}
		switch {
		case allowRunFlags && flag && name == "max-memory":
			n, err := eval.ParseBytes(val)
			if err != nil {
				fmt.Fprintf(stderr, "error: --max-memory: %v\n", err)
				return "", opts, false
			}
			opts.MaxMemory = n
		case allowRunFlags && flag && name == "max-steps":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				fmt.Fprintf(stderr, "error: --max-steps: want a positive whole number of calls, got %q\n", val)
				return "", opts, false
			}
			opts.MaxSteps = n
		case allowRunFlags && flag && name == "json":
			opts.JSON = true
		case allowRunFlags && flag && name == "allow":
			if fi, err := os.Stat(val); err != nil || !fi.IsDir() {
				fmt.Fprintf(stderr, "error: --allow %s: not a directory\n", val)
				return "", opts, false
			}
			allowed = append(allowed, val)
		case allowRunFlags && flag && name == "seed":
			seed, err := strconv.ParseUint(val, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "error: --seed needs a whole number ≥ 0, got %q\n", val)
				return "", opts, false
			}
			opts.Seed, opts.SeedSet = seed, true
		case strings.HasPrefix(a, "-") && a != "-":
			fmt.Fprintf(stderr, "error: kml %s: unknown option %s\n", cmd, a)
			return "", opts, false
		case file == "":
			file = a
		default:
			fmt.Fprintf(stderr, "error: kml %s takes one file, got %q and %q\n", cmd, file, a)
			return "", opts, false
		}
	}
	if file == "" {
		fmt.Fprintf(stderr, "error: kml %s needs a file: kml %s FILE.kml\n", cmd, cmd)
		return "", opts, false
	}
	// The script's own directory only: running a downloaded script from the
	// home directory must not let it write there.
	dir, _ := filepath.Abs(filepath.Dir(file))
	opts.Dirs = append([]string{dir}, allowed...)
	opts.BaseDir = dir
	opts.NoReplay = noReplay()
	return file, opts, true
}

func runFile(args []string, stdout, stderr io.Writer) int {
	args, cpuProfile, memProfile, ferr := profileFlags(args)
	if ferr != nil {
		fmt.Fprintf(stderr, "error: %v\n", ferr)
		return exitStatic
	}
	file, opts, ok := runOptions("run", args, stderr, true)
	if !ok {
		return exitStatic
	}
	prof, perr := startProfiles(cpuProfile, memProfile, stderr)
	if perr != nil {
		fmt.Fprintf(stderr, "error: %v\n", perr)
		return exitRuntime
	}
	defer prof.stop()
	beforeExit = prof.stop
	opts.Stdout, opts.Stderr = stdout, stderr
	opts.Progress = terminal(stderr) && !opts.JSON // a progress line would break a JSON consumer reading both streams
	if opts.MaxMemory > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit(opts.MaxMemory)))
	}
	lateFirstGC(opts.MaxMemory)
	ctx, relay := interruptible()
	opts.Context = ctx
	in := eval.New(opts)
	defer relay(stderr, in)()
	_, err := in.EvalFile(file)
	return report(in, err, stderr)
}

// runtimeAllowance is what a run may take beyond its memory budget: the
// interpreter and its binary, the syntax tree, the builtins' scratch space,
// which the budget does not count (lang/eval's ledger.go).
const runtimeAllowance = 64 << 20

// memoryLimit is the soft limit of Go's heap (debug.SetMemoryLimit) for a
// run with --max-memory: the collector then works harder as the heap
// nears the budget, rather than letting garbage grow it to twice the live
// values (GOGC's default), so the process's peak stays near what the
// budget counts.
func memoryLimit(budget int64) int64 { return budget + runtimeAllowance }

// interruptible is a context cancelled by the first SIGINT or SIGTERM, and
// relay, which starts passing the signal on to in: the running statement
// stops at its next check (a dense factorisation at its next block, through
// in.Interrupt) and the script ends with the statement's position; the
// context ends what follows it. The handler is installed at once, so a
// signal before relay waits for it. A second signal ends the process at
// once with status 130, whatever the computation is doing: the handler
// stays installed (a shell starts a background job with SIGINT ignored,
// and stopping the relay would make that signal ignored again), and exits
// itself instead of relying on the default action. relay returns the
// function that stops relaying.
func interruptible() (context.Context, func(stderr io.Writer, in *eval.Interpreter) func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	return ctx, func(stderr io.Writer, in *eval.Interpreter) func() {
		done := make(chan struct{})
		go func() {
			select {
			case <-sig:
				cancel()
				in.Interrupt()
			case <-done:
				return
			}
			select {
			case <-sig:
				fmt.Fprintln(stderr, "\nerror: interrupted again: stopping at once")
				beforeExit()
				exit(exitSignal)
			case <-done:
			}
		}()
		var once sync.Once
		return func() {
			once.Do(func() {
				signal.Stop(sig)
				close(done)
				cancel()
			})
		}
	}
}

// exit ends the process (a variable so a test can see the call).
var exit = os.Exit

// beforeExit runs before a second signal ends the process: kml run sets
// it to write its profiles.
var beforeExit = func() {}

func checkFile(args []string, stdout, stderr io.Writer) int {
	explain := false
	var rest []string
	for _, a := range args {
		if a == "--explain" || a == "-explain" {
			explain = true
			continue
		}
		rest = append(rest, a)
	}
	file, opts, ok := runOptions("check", rest, stderr, false)
	if !ok {
		return exitStatic
	}
	opts.Stdout, opts.Stderr = stdout, stderr
	in := eval.New(opts)
	if status := report(in, in.CheckFile(file), stderr); status != exitOK || !explain {
		return status
	}
	return explainFile(file, opts, stdout, stderr)
}

// report prints err for the user and returns the exit status.
func report(in *eval.Interpreter, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var list ast.ErrorList
	var one *ast.Error
	switch {
	case errors.Is(err, context.Canceled):
		in.Sources().Print(stderr, err)
		return exitSignal
	case errors.As(err, &list):
		in.Sources().Print(stderr, err)
		return exitStatic
	case errors.As(err, &one):
		in.Sources().Print(stderr, err)
		return exitRuntime
	}
	fmt.Fprintf(stderr, "error: %v\n", err)
	return exitRuntime
}

// replOptions parses `kml repl [--allow DIR]...`.
func replOptions(args []string, stderr io.Writer) ([]string, bool) {
	var allowed []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || name != "allow" {
			fmt.Fprintf(stderr, "error: kml repl takes only --allow DIR, got %q\n", args[i])
			return nil, false
		}
		if !hasVal {
			if i+1 >= len(args) {
				fmt.Fprintf(stderr, "error: --allow needs a value\n")
				return nil, false
			}
			i++
			val = args[i]
		}
		if fi, err := os.Stat(val); err != nil || !fi.IsDir() {
			fmt.Fprintf(stderr, "error: --allow %s: not a directory\n", val)
			return nil, false
		}
		allowed = append(allowed, val)
	}
	return allowed, true
}

// runREPL starts the prompt with the working directory and the --allow
// ones granted, as kml run grants a script's directory.
func runREPL(allowed []string, stdin io.Reader, stdout, stderr io.Writer) int {
	wd, _ := os.Getwd()
	in := eval.New(eval.Options{Stdout: stdout, Stderr: stderr, Dirs: append([]string{wd}, allowed...), BaseDir: wd, Progress: terminal(stderr), NoReplay: noReplay()})
	rc, ok := stdin.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(stdin)
	}
	if err := repl.Run(repl.Config{Interp: in, Stdin: rc, Stdout: stdout, Stderr: stderr}); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitRuntime
	}
	return exitOK
}
