package ast

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSnippetClipsLongLines checks that a snippet of a very long line shows
// a window around the column, with the caret under the same character as in
// the whole line, and that short lines are shown whole.
func TestSnippetClipsLongLines(t *testing.T) {
	line := strings.Repeat("a", 5000) + "X" + strings.Repeat("b", 5000)
	got := Snippet(line+"\n", Pos{File: "f", Line: 1, Col: 5001})
	text, caret, _ := strings.Cut(got, "\n")
	if n := utf8.RuneCountInString(text); n > snippetWidth+6 {
		t.Errorf("snippet line has %d characters, want at most %d", n, snippetWidth+6)
	}
	if !strings.HasPrefix(text, "...") || !strings.HasSuffix(text, "...") {
		t.Errorf("snippet of a line cut on both sides is not marked: %.20q...", text)
	}
	at := strings.Index(caret, "^")
	if at < 0 || at >= len(text) || text[at] != 'X' {
		t.Errorf("caret at %d does not point at X in %q", at, text)
	}
	// Near the start only the end is cut, and the caret stays in place.
	got = Snippet(line, Pos{File: "f", Line: 1, Col: 3})
	text, caret, _ = strings.Cut(got, "\n")
	if strings.HasPrefix(text, "...") || !strings.HasSuffix(text, "...") || strings.Index(caret, "^") != 2 {
		t.Errorf("snippet near the start: %.20q, caret %q", text, caret)
	}
	// Near the end only the start is cut.
	got = Snippet(line, Pos{File: "f", Line: 1, Col: 10001})
	text, caret, _ = strings.Cut(got, "\n")
	if at := strings.Index(caret, "^"); !strings.HasPrefix(text, "...") || strings.HasSuffix(text, "...") || text[at] != 'b' || at != len(text)-1 {
		t.Errorf("snippet near the end: ...%q, caret at %d", text[len(text)-10:], strings.Index(caret, "^"))
	}
	short := "let x = 1 +"
	if got := Snippet(short, Pos{File: "f", Line: 1, Col: 12}); got != short+"\n"+strings.Repeat(" ", 11)+"^\n" {
		t.Errorf("short line: %q", got)
	}
}
