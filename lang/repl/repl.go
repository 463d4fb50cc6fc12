package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"

	"github.com/chzyer/readline"

	"github.com/kml-lang/kml/lang/assist"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/grammar"
	"github.com/kml-lang/kml/lang/render"
)

const (
	prompt     = "kml> "
	contPrompt = "...> "
)

// Config configures Run. Zero fields take the process's standard streams
// and a history file in the user's cache directory.
type Config struct {
	Interp *eval.Interpreter
	Stdin  io.ReadCloser
	Stdout io.Writer
	Stderr io.Writer
	// HistoryFile keeps the lines across sessions; "" picks
	// os.UserCacheDir()/kml/history, "-" keeps none.
	HistoryFile string
	// Interrupts delivers Ctrl-C while an evaluation runs; nil installs a
	// SIGINT handler for the length of each evaluation.
	Interrupts <-chan os.Signal
	// Terminal says whether Stdin is a terminal; nil asks readline.
	Terminal func() bool
}

// Run reads, evaluates and prints until :quit or end of input.
func Run(cfg Config) error {
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	history := cfg.HistoryFile
	if history == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			os.MkdirAll(filepath.Join(dir, "kml"), 0o755)
			history = filepath.Join(dir, "kml", "history")
		}
	}
	if history == "-" {
		history = ""
	}
	r := &session{in: cfg.Interp, out: cfg.Stdout, errw: cfg.Stderr, interrupts: cfg.Interrupts}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:          prompt,
		HistoryFile:     history,
		AutoComplete:    completer{r},
		InterruptPrompt: "^C",
		EOFPrompt:       "",
		Stdin:           cfg.Stdin,
		Stdout:          cfg.Stdout,
		Stderr:          cfg.Stderr,
		FuncIsTerminal:  cfg.Terminal,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintln(cfg.Stdout, "KML — kernel modelling language. :help for help, :quit to leave.")
	var buf []string
	for {
		if len(buf) == 0 {
			rl.SetPrompt(prompt)
		} else {
			rl.SetPrompt(contPrompt)
		}
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf = nil // Ctrl-C while typing drops the input
			continue
		}
		if err == io.EOF && len(buf) > 0 && interactive(cfg) {
			// Ctrl-D on a continuation line drops the unfinished input,
			// as Ctrl-C does; on an empty prompt it leaves.
			buf = nil
			fmt.Fprintln(r.errw, "(unfinished input discarded)")
			continue
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if len(buf) == 0 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			if quit := r.command(strings.TrimSpace(line)); quit {
				return nil
			}
			continue
		}
		buf = append(buf, line)
		src := strings.Join(buf, "\n")
		if strings.TrimSpace(src) == "" {
			buf = nil
			continue
		}
		if grammar.Incomplete(src) {
			continue
		}
		buf = nil
		r.eval(src, true)
	}
}

// session is the state of one REPL.
type session struct {
	in         *eval.Interpreter
	out, errw  io.Writer
	n          int
	interrupts <-chan os.Signal
	base       context.Context // the parent of each evaluation's context; nil is Background
	label      string          // inputs are named <label N>; "" is repl
}

// eval runs one input with Ctrl-C cancelling it.
func (r *session) eval(src string, show bool) {
	v, err := r.source(src)
	if err != nil {
		r.in.Sources().Print(r.errw, err)
		return
	}
	if show && v != nil && v != eval.NoneValue {
		fmt.Fprintln(r.out, render.Text(v))
	}
}

// source evaluates KML source as the next input of the session.
func (r *session) source(src string) (eval.Value, error) {
	r.n++
	label := r.label
	if label == "" {
		label = "repl"
	}
	name := fmt.Sprintf("<%s %d>", label, r.n)
	return r.run(func(ctx context.Context) (eval.Value, error) {
		return r.in.EvalContext(ctx, name, src)
	})
}

// run calls f with a context that Ctrl-C interrupts: the interpreter's
// Interrupt stops the statement running now (a dense factorisation too)
// and nothing after it, and the context is cancelled as well, for a
// Ctrl-C that comes before the evaluation has begun (while `:load` reads
// its file).
func (r *session) run(f func(ctx context.Context) (eval.Value, error)) (eval.Value, error) {
	base := r.base
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	sig := r.interrupts
	if sig == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		defer signal.Stop(ch)
		sig = ch
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-sig:
			cancel()
			r.in.Interrupt()
		case <-done:
		}
	}()
	defer func() {
		close(done)
		<-stopped
	}()
	return f(ctx)
}

var commands = []string{":help", ":load", ":type", ":quit"}

// command runs a `:` command and reports whether to leave.
func (r *session) command(line string) bool {
	quit, err := r.exec(line)
	if err != nil {
		r.in.Sources().Print(r.errw, err)
	}
	return quit
}

// exec runs a `:` command, returning whether to leave and the error of
// the evaluation it ran (:load, :type); its other messages go to errw.
func (r *session) exec(line string) (bool, error) {
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	switch name {
	case ":quit", ":q", ":exit":
		return true, nil
	case ":help", ":h":
		r.help(arg)
	case ":load", ":l":
		if arg == "" {
			fmt.Fprintln(r.errw, "usage: :load FILE")
			return false, nil
		}
		// The file must lie in a directory the session may read, as
		// read_csv's files must; relative paths inside it then resolve
		// against its own directory.
		if _, err := r.in.Sandbox().ReadPath(r.in.BaseDir(), arg); err != nil {
			if near := r.in.NearbyFile(r.in.BaseDir(), arg); near != "" {
				fmt.Fprintf(r.errw, "error: :load: %v; did you mean %q?\n", err, near)
			} else {
				fmt.Fprintf(r.errw, "error: :load: %v\n", err)
			}
			return false, nil
		}
		path := arg
		if wd, _ := os.Getwd(); !filepath.IsAbs(arg) && r.in.BaseDir() != wd {
			path = filepath.Join(r.in.BaseDir(), arg)
		}
		_, err := r.run(func(ctx context.Context) (eval.Value, error) {
			return r.in.EvalFileContext(ctx, path)
		})
		return false, err
	case ":type", ":t":
		if arg == "" {
			fmt.Fprintln(r.errw, "usage: :type EXPR")
			return false, nil
		}
		v, err := r.source(arg)
		if err != nil {
			return false, err
		}
		fmt.Fprintln(r.out, describeType(v))
	default:
		fmt.Fprintf(r.errw, "unknown command %s; try :help\n", name)
	}
	return false, nil
}

func (r *session) help(name string) {
	if name == "" {
		fmt.Fprint(r.out, `Type KML statements and expressions; an expression's value is printed.
An unclosed bracket, a model body or a trailing operator continues on the next line.
  :help NAME   the signature and documentation of a builtin or function
  :load FILE   run a file in this session
  :type EXPR   the kind and shape of EXPR's value
  :quit        leave (also Ctrl-D); Ctrl-C stops a running evaluation
Builtins:
`)
		names := r.in.Registry().Names()
		fmt.Fprintln(r.out, assist.Wrap(names, 78))
		return
	}
	if text, ok := r.helpText(name); ok {
		fmt.Fprint(r.out, text)
		return
	}
	fmt.Fprintf(r.errw, "no builtin or name %q\n", name)
}

// helpText is what `:help NAME` prints for a name: a builtin's usage and
// documentation, a session fn's signature, or a value's kind and shape.
func (r *session) helpText(name string) (string, bool) {
	if b, ok := r.in.Registry().Get(name); ok {
		if v, ok := r.in.Lookup(name); !ok || v == nil {
			return assist.BuiltinHelp(b), true
		}
	}
	if v, ok := r.in.Lookup(name); ok {
		if c, ok := v.(eval.Callable); ok {
			return fmt.Sprintf("%s (defined in this session)\n", c.Signature()), true
		}
		return fmt.Sprintf("%s: %s\n", name, eval.Describe(v)), true
	}
	return "", false
}

// completer completes names and `:` commands at the cursor.
type completer struct{ r *session }

func (c completer) Do(line []rune, pos int) ([][]rune, int) {
	prefix, candidates := c.complete(line[:pos])
	var out [][]rune
	for _, cand := range candidates {
		out = append(out, []rune(cand[len(prefix):]))
	}
	return out, len([]rune(prefix))
}

// complete returns the word being typed at the end of before and the
// candidates extending it: `:` commands at the start of a line, else
// assist.Complete's names.
func (c completer) complete(before []rune) (prefix string, candidates []string) {
	start := len(before)
	for start > 0 && assist.IsNameRune(before[start-1]) {
		start--
	}
	if start > 0 && before[start-1] == ':' && strings.TrimSpace(string(before[:start-1])) == "" {
		prefix = string(before[start:])
		for _, cmd := range commands {
			if cmd[1:] != prefix && strings.HasPrefix(cmd[1:], prefix) {
				candidates = append(candidates, cmd[1:])
			}
		}
		sort.Strings(candidates)
		return prefix, candidates
	}
	// At an argument of a call, the call's named arguments come first:
	// sample(m, ch<Tab> offers chains: before chol.
	return assist.Complete(before, c.r.in.Names(), c.sig)
}

// sig is the signature of a callable name: the session's fn, or else the
// builtin.
func (c completer) sig(name string) *check.Signature {
	if v, ok := c.r.in.Lookup(name); ok && v != nil {
		if f, ok := v.(eval.Callable); ok {
			return f.Signature()
		}
		return nil
	}
	if b, ok := c.r.in.Registry().Get(name); ok {
		return b.Sig
	}
	return nil
}

// interactive reports whether input comes from a person at a terminal, who
// can go on typing after Ctrl-D (piped input ends at its EOF).
func interactive(cfg Config) bool {
	if cfg.Terminal != nil {
		return cfg.Terminal()
	}
	f, ok := cfg.Stdin.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}

// describeType is what :type prints: the value's kind and shape, and for a
// record each field's.
func describeType(v eval.Value) string {
	rec, ok := v.(*eval.Record)
	if !ok {
		return eval.Describe(v)
	}
	var b strings.Builder
	b.WriteString(eval.Describe(v))
	for _, name := range rec.AttrNames() {
		f, _ := rec.Attr(name)
		fmt.Fprintf(&b, "\n  %s: %s", name, eval.Describe(f))
	}
	return b.String()
}
