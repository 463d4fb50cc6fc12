package grammar

import (
	"strings"

	"github.com/kml-lang/kml/lang/ast"
)

// TokenKind is the kind of a Token.
type TokenKind int

// The kinds of Token.
const (
	EOF     TokenKind = iota
	Ident             // a name
	Keyword           // let fn model import generated if then else true false
	Number            // 1, 0.5, 1e-3
	String            // a double-quoted string, quotes and escapes kept
	Punct             // an operator or bracket
	Newline           // a newline or ';' (every one: none is filtered)
	Comment           // '#' to the end of the line, without the newline
)

// Token is one token of a source file as the scanner reads it, for tools
// that work on the text rather than the tree (the formatter, an editor's
// highlighting): every newline is kept, and comments are tokens too.
type Token struct {
	Kind   TokenKind
	Text   string // the source text
	Pos    ast.Pos
	Offset int // of the first byte in the source
}

// Tokens scans src into tokens, comments included, ending with an EOF
// token. It reports the scanner's errors (an unterminated string, a stray
// character); the parser reports everything else.
func Tokens(filename, src string) ([]Token, error) {
	s := &scanner{source: source{file: filename, src: src}, line: 1, col: 1}
	s.off = len(src) - len(strings.TrimPrefix(src, "\ufeff"))
	s.run()
	var out []Token
	// Comments are the gaps between tokens that hold a '#': every newline
	// is a token, so a gap is part of one line and holds at most one.
	prevEnd, line, col := s.off0(), 1, 1
	for _, t := range s.toks {
		if t.off > int32(prevEnd) {
			gap := src[prevEnd:t.off]
			if i := strings.IndexByte(gap, '#'); i >= 0 {
				// The comment's column: the gap's start column plus the
				// runes before the '#'.
				c := col + len([]rune(gap[:i]))
				out = append(out, Token{Kind: Comment, Text: strings.TrimRight(gap[i:], " \t\r"), Pos: ast.Pos{File: filename, Line: line, Col: c}, Offset: prevEnd + i})
			}
		}
		lt := s.lexToken(t)
		out = append(out, Token{Kind: tokenKind(t), Text: lt.Value, Pos: ast.Pos{File: filename, Line: int(t.line), Col: int(t.col)}, Offset: int(t.off)})
		end := int(t.off) + max(int(t.n), 0)
		if t.n < 0 && t.is(tokString) { // an unterminated string runs to the end of its line
			end = len(src)
			if i := strings.IndexByte(src[t.off:], '\n'); i >= 0 {
				end = int(t.off) + i
			}
		}
		prevEnd, line, col = end, int(t.line), int(t.col)+len([]rune(src[t.off:end]))
		if t.is(tokEOL) && lt.Value == "\n" {
			line, col = line+1, 1
		}
	}
	return out, s.errs.Err()
}

// off0 is where scanning started: after a byte order mark.
func (s *scanner) off0() int { return len(s.src) - len(strings.TrimPrefix(s.src, "\ufeff")) }

func tokenKind(t token) TokenKind {
	switch {
	case t.is(tokIdent):
		return Ident
	case t.is(tokKeyword):
		return Keyword
	case t.is(tokNumber):
		return Number
	case t.is(tokString):
		return String
	case t.is(tokPunct):
		return Punct
	case t.is(tokEOL):
		return Newline
	}
	return EOF
}
