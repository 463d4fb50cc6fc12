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
type Error struct {
	Pos Pos
	Msg string
	// Notes are further lines printed under the snippet ("note: ...").
	Notes []string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: error: %s", e.Pos, e.Msg)
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
