package lsp

import (
	"strings"
	"unicode/utf8"

	"github.com/kml-lang/kml/lang/assist"
	"github.com/kml-lang/kml/lang/ast"
)

// text is a document's content split into lines, for converting between
// KML positions (1-based, columns in runes) and LSP positions (0-based,
// columns in UTF-16 code units).
type text struct {
	src   string
	lines []string // without their "\n"
}

func newText(src string) *text {
	return &text{src: src, lines: strings.Split(src, "\n")}
}

// line returns 0-based line i, "" past the end.
func (t *text) line(i int) string {
	if i < 0 || i >= len(t.lines) {
		return ""
	}
	return t.lines[i]
}

// toLSP converts a KML line and rune column (both 1-based) to an LSP
// position. A column past the end of its line is kept past it.
func (t *text) toLSP(line, col int) position {
	if line < 1 {
		return position{}
	}
	l := t.line(line - 1)
	units, n := 0, 1
	for _, r := range l {
		if n >= col {
			break
		}
		units += utf16Len(r)
		n++
	}
	units += max(col-n, 0)
	return position{Line: line - 1, Character: units}
}

// fromLSP converts an LSP position to a KML line and rune column (1-based).
func (t *text) fromLSP(p position) (line, col int) {
	l := t.line(p.Line)
	units, col := 0, 1
	for _, r := range l {
		if units >= p.Character {
			break
		}
		units += utf16Len(r)
		col++
	}
	return p.Line + 1, col
}

// offset returns the byte offset of LSP position p in the text, clamped to
// the text.
func (t *text) offset(p position) int {
	off := 0
	for i := 0; i < p.Line && i < len(t.lines); i++ {
		off += len(t.lines[i]) + 1
	}
	if p.Line >= len(t.lines) {
		return len(t.src)
	}
	units := 0
	l := t.lines[p.Line]
	for i, r := range l {
		if units >= p.Character {
			return off + i
		}
		units += utf16Len(r)
	}
	return off + len(l)
}

// end is the LSP position just past the last character.
func (t *text) end() position {
	last := len(t.lines) - 1
	return position{Line: last, Character: utf16Count(t.lines[last])}
}

// span is the range of the name (or the one character) starting at pos.
func (t *text) span(pos ast.Pos) lspRange {
	start := t.toLSP(pos.Line, pos.Col)
	l := []rune(t.line(pos.Line - 1))
	i := pos.Col - 1
	j := i
	for j < len(l) && assist.IsNameRune(l[j]) {
		j++
	}
	if j == i && j < len(l) {
		j++
	}
	end := start
	for k := max(i, 0); k < j; k++ {
		end.Character += utf16Len(l[k])
	}
	if end == start { // at the end of a line: mark one column past it
		end.Character++
	}
	return lspRange{Start: start, End: end}
}

func utf16Len(r rune) int {
	if r >= 0x10000 && r <= utf8.MaxRune {
		return 2
	}
	return 1
}

func utf16Count(s string) int {
	n := 0
	for _, r := range s {
		n += utf16Len(r)
	}
	return n
}
