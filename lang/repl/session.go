package repl

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/grammar"
)

// Session is the prompt's evaluation without the prompt: what a front end
// that reads its input elsewhere (the Jupyter kernel, lang/jupyter) runs so
// that a cell means what the same lines typed at `kml repl` mean — names
// kept from one input to the next, the `:` commands, the same completion
// and help. It is not safe for concurrent use.
type Session struct{ s *session }

// NewSession starts a session on in; `:` commands print on out and errw.
// Inputs are named `<label N>` in error messages (the prompt's are
// `<repl N>`).
func NewSession(in *eval.Interpreter, label string, out, errw io.Writer) *Session {
	// A session driven from outside is interrupted through Exec's context,
	// never by a signal of its own: this channel never delivers.
	return &Session{&session{in: in, out: out, errw: errw, interrupts: make(chan os.Signal), label: label}}
}

// Interp is the session's interpreter.
func (s *Session) Interp() *eval.Interpreter { return s.s.in }

// Exec runs one input under ctx, as the prompt runs a complete input: a
// line starting with `:` is a command (its output goes to out and errw,
// and the value is nil), anything else is KML source whose value is
// returned (eval.NoneValue for statements). The error is the evaluation's,
// to be printed with Interp().Sources().Print.
func (s *Session) Exec(ctx context.Context, src string) (eval.Value, error) {
	s.s.base = ctx
	defer func() { s.s.base = nil }()
	if line := strings.TrimSpace(src); strings.HasPrefix(line, ":") && !strings.Contains(line, "\n") {
		_, err := s.s.exec(line)
		return nil, err
	}
	return s.s.source(src)
}

// Complete returns the word being typed at the end of before (the text
// up to the cursor) and its completions, as Tab offers them.
func (s *Session) Complete(before []rune) (prefix string, candidates []string) {
	return completer{s.s}.complete(before)
}

// Help is what `:help NAME` prints for name, false when it is unknown.
func (s *Session) Help(name string) (string, bool) { return s.s.helpText(name) }

// Incomplete reports whether src needs more lines before it can run, as
// the prompt's continuation does.
func Incomplete(src string) bool { return grammar.Incomplete(src) }
