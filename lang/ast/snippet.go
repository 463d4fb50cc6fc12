package ast

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// snippetWidth is the most characters of a source line a snippet shows: a
// longer line (generated code, a data literal on one line) is cut to this
// many around the column, with "..." where it was cut, so that one error
// does not print a 60,000-character line.
const snippetWidth = 200

// Snippet returns the source line of pos and a caret under its column, each
// ending in a newline, or "" when the line is not in src. Tabs before the
// column are kept in the caret line so the caret lines up in a terminal.
func Snippet(src string, pos Pos) string {
	if !pos.IsValid() {
		return ""
	}
	line := pos.Line
	rest := src
	for i := 1; i < line; i++ {
		j := strings.IndexByte(rest, '\n')
		if j < 0 {
			return ""
		}
		rest = rest[j+1:]
	}
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	rest = strings.TrimRight(rest, "\r")
	if utf8.RuneCountInString(rest) > snippetWidth {
		rest, pos = clip(rest, pos)
	}
	var caret strings.Builder
	col := 1
	for _, r := range rest {
		if col >= pos.Col {
			break
		}
		if r == '\t' {
			caret.WriteByte('\t')
		} else if unicode.In(r, unicode.Mn, unicode.Me) {
			// A combining mark takes no cell of its own.
		} else {
			caret.WriteByte(' ')
		}
		col++
	}
	for ; col < pos.Col; col++ { // a position just past the end of the line
		caret.WriteByte(' ')
	}
	if utf8.RuneCountInString(rest) == 0 && pos.Col > 1 {
		return ""
	}
	return rest + "\n" + caret.String() + "^\n"
}

// Sources maps file names to their text, so errors can be shown with the line
// they point at.
type Sources map[string]string

// Print writes err for a user: each KML error as "FILE:LINE:COL: error: msg",
// the source line and a caret, then its notes; any other error as
// "error: msg".
func (s Sources) Print(w io.Writer, err error) {
	var list ErrorList
	var one *Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			s.printOne(w, e)
		}
	case errors.As(err, &one):
		s.printOne(w, one)
	default:
		fmt.Fprintf(w, "error: %v\n", err)
	}
}

func (s Sources) printOne(w io.Writer, e *Error) {
	fmt.Fprintln(w, e.Error())
	if src, ok := s[e.Pos.File]; ok {
		io.WriteString(w, Snippet(src, e.Pos))
	}
	for _, n := range e.NoteLines() {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}

// clip cuts line to snippetWidth characters around pos's column, marking
// each cut with "...", and returns the part and the column moved with it.
func clip(line string, pos Pos) (string, Pos) {
	runes := []rune(line)
	start := pos.Col - 1 - snippetWidth/2
	if start < 0 {
		start = 0
	}
	end := start + snippetWidth
	if end > len(runes) {
		end = len(runes)
		start = max(0, end-snippetWidth)
	}
	out := string(runes[start:end])
	pos.Col -= start
	if start > 0 {
		out = "..." + out
		pos.Col += 3
	}
	if end < len(runes) {
		out += "..."
	}
	return out, pos
}
