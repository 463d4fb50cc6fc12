package ast

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// runes, so a caret lines up under Unicode identifiers. The zero Pos means
// "no position".
type Pos struct {
	File string
	Line int
	Col  int
}

// IsValid reports whether p names a place in a file.
func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string {
	file := p.File
	if file == "" {
		file = "<input>"
	}
	if !p.IsValid() {
		return file
	}
	return fmt.Sprintf("%s:%d:%d", file, p.Line, p.Col)
}

// Before reports whether p comes before q in the same file (or sorts by file).
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Error is a fault in a KML program at a position: a syntax, check or runtime
// error. Error() prints "FILE:LINE:COL: error: message"; the caret snippet is
// rendered at the edge (the command line, the REPL) by Snippet.
//
// A runtime error also keeps, as data, the KML calls it passed through
// (Stack) and the Go error it reports (Cause, reached by errors.Is and
// errors.As through Unwrap). Errors are values: code that adds to one in
// flight copies it (WithFrame, WithPos) rather than changing it.
type Error struct {
	Pos Pos
	Msg string
	// Notes are further lines printed under the snippet ("note: ...").
	Notes []string
	// Stack lists the fn calls the error passed through, innermost first.
	Stack []Frame
	// Cause is the error this one reports (a builtin's Go error, a
	// cancelled context), or nil.
	Cause error
}

// Frame is one call on a runtime error's stack: the fn called and where.
type Frame struct {
	Name string
	Pos  Pos
}

// maxNotes bounds the notes and call frames printed under an error.
const maxNotes = 5

// MaxStack bounds the frames an error keeps: the innermost calls, which
// are the ones printed (a runaway recursion would otherwise copy thousands).
const MaxStack = 64

func (e *Error) Error() string {
	return fmt.Sprintf("%s: error: %s", e.Pos, e.Msg)
}

// Unwrap returns the cause, so errors.Is(err, context.Canceled) sees
// through a KML error.
func (e *Error) Unwrap() error { return e.Cause }

// WithFrame returns a copy of e with call f added as its outermost frame.
func (e *Error) WithFrame(f Frame) *Error {
	c := *e
	if len(e.Stack) < MaxStack {
		c.Stack = append(e.Stack[:len(e.Stack):len(e.Stack)], f)
	}
	return &c
}

// WithPos returns a copy of e placed at pos.
func (e *Error) WithPos(pos Pos) *Error {
	c := *e
	c.Pos = pos
	return &c
}

// NoteLines are the lines printed under the error's snippet: its notes,
// then "in f called at POS" for each frame of its stack, at most five in
// all. An error with no file (a string evaluated without a name) shows no
// calls.
func (e *Error) NoteLines() []string {
	out := append([]string(nil), e.Notes...)
	if e.Pos.File == "" {
		return out
	}
	for _, f := range e.Stack {
		if len(out) >= maxNotes {
			break
		}
		out = append(out, fmt.Sprintf("in %s called at %s", f.Name, f.Pos))
	}
	return out
}

// Errorf makes an *Error at pos.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList is every error found by a pass, so a user sees them all at once.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Pos, format string, args ...any) {
	*l = append(*l, Errorf(pos, format, args...))
}

// Sort orders the list by position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool { return l[i].Pos.Before(l[j].Pos) })
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
