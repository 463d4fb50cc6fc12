package grammar

import (
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
	"golang.org/x/text/unicode/norm"

	"github.com/kml-lang/kml/lang/ast"
)

// Token types of KML's scanner.
const (
	tokEOF     = lexer.EOF
	tokIdent   = lexer.TokenType(-2 - iota)
	tokKeyword // reserved words: let fn model import generated if then else true false
	tokNumber
	tokString
	tokPunct // operators and brackets
	tokEOL   // a newline or ';' that ends a statement
)

var keywords = map[string]bool{
	"let": true, "fn": true, "model": true, "import": true, "generated": true,
	"if": true, "then": true, "else": true, "true": true, "false": true,
}

// IsKeyword reports whether name is reserved and so cannot name a value.
func IsKeyword(name string) bool { return keywords[name] }

// continuers are tokens after which a newline does not end a statement: binary
// operators, separators and the keywords that must be followed by more.
var continuers = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "@": true,
	"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true,
	"&&": true, "||": true, "!": true, "~": true, "=": true, "+=": true, ",": true, ":": true, ".": true,
	"if": true, "then": true, "else": true,
}

// definition adapts the scanner to participle. Tokens arrive pre-scanned by
// scan, which also decides which newlines end statements.
type definition struct{}

func (definition) Symbols() map[string]lexer.TokenType {
	return map[string]lexer.TokenType{
		"EOF": tokEOF, "Ident": tokIdent, "Keyword": tokKeyword, "Number": tokNumber,
		"String": tokString, "Punct": tokPunct, "EOL": tokEOL,
	}
}

func (definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	toks, _ := scan(filename, string(b))
	return &tokenList{toks: toks}, nil
}

// tokenList feeds pre-scanned tokens to participle, then its last token
// for ever.
type tokenList struct {
	toks []lexer.Token
	i    int
}

func (l *tokenList) Next() (lexer.Token, error) {
	if l.i < len(l.toks) {
		t := l.toks[l.i]
		l.i++
		return t, nil
	}
	return l.toks[len(l.toks)-1], nil
}

// compactList feeds compact tokens to participle, expanded as it reads
// them, then eof for ever.
type compactList struct {
	src  *source
	toks []token
	eof  token
	i    int
}

func (l *compactList) Next() (lexer.Token, error) {
	if l.i < len(l.toks) {
		t := l.toks[l.i]
		l.i++
		return l.src.lexToken(t), nil
	}
	return l.src.lexToken(l.eof), nil
}

// token is a scanned token in 20 bytes rather than participle's 64: a long
// file has a token for every two or three bytes, and allocating and
// clearing participle's tokens for all of them at once was a third of the
// time to parse one. The value is src[off:off+n] or, when n < 0, the one
// the scanner made up for its type (synthValue).
type token struct {
	typ       int8
	off, n    int32
	line, col int32
}

func (t token) is(typ lexer.TokenType) bool { return lexer.TokenType(t.typ) == typ }

// source is what the tokens point into.
type source struct {
	file, src string
	// nfc holds, by offset, the NFC form of each name not written in it:
	// é typed as e and a combining accent is the same name as é typed as
	// one character. Positions still count the characters as written.
	nfc map[int32]string
}

func (s *source) value(t token) string {
	if t.n < 0 {
		return synthValue(t.typ)
	}
	if s.nfc != nil && lexer.TokenType(t.typ) == tokIdent {
		if v, ok := s.nfc[t.off]; ok {
			return v
		}
	}
	return s.src[t.off : t.off+t.n]
}

// synthValue is the value of a token the scanner inserted: a statement end
// before a statement keyword, or an unterminated string's stand-in.
func synthValue(typ int8) string {
	switch lexer.TokenType(typ) {
	case tokEOL:
		return "\n"
	case tokString:
		return `""`
	}
	return ""
}

func (s *source) lexToken(t token) lexer.Token {
	return lexer.Token{
		Type:  lexer.TokenType(t.typ),
		Value: s.value(t),
		Pos:   lexer.Position{Filename: s.file, Offset: int(t.off), Line: int(t.line), Column: int(t.col)},
	}
}

func (s *source) lexTokens(toks []token) []lexer.Token {
	out := make([]lexer.Token, len(toks))
	for i, t := range toks {
		out[i] = s.lexToken(t)
	}
	return out
}

// scan splits src into tokens, ending with an EOF token. Newlines become EOL
// tokens only where they end a statement: not inside ( ) or [ ] or a record's
// { }, not after an operator or a comma, not before `then` or `else`; runs of
// EOLs collapse to one. Errors (an unterminated string, a stray character) are
// collected and scanning goes on.
func scan(file, src string) ([]lexer.Token, ast.ErrorList) {
	s, toks := scanCompact(file, src)
	return s.lexTokens(toks), s.errs
}

// scanCompact is scan with compact tokens.
func scanCompact(file, src string) (*scanner, []token) {
	s := &scanner{source: source{file: file, src: src}, line: 1, col: 1}
	if len(src) > math.MaxInt32 {
		s.errs.Add(ast.Pos{File: file, Line: 1, Col: 1}, "the source is %d bytes; the limit is %d", len(src), math.MaxInt32)
		s.emit(tokEOF, s.pos(), 0)
		return s, s.toks
	}
	s.toks = make([]token, 0, len(src)/2+8)                   // at most about one token per two bytes
	s.off = len(src) - len(strings.TrimPrefix(src, "\ufeff")) // a byte order mark is not text
	s.run()
	return s, s.filter()
}

type scanner struct {
	source
	off       int
	line, col int
	toks      []token
	errs      ast.ErrorList
}

// mark is a position in the source.
type mark struct{ off, line, col int }

func (s *scanner) pos() mark { return mark{s.off, s.line, s.col} }

func (s *scanner) astPos(p mark) ast.Pos {
	return ast.Pos{File: s.file, Line: p.line, Col: p.col}
}

// advance moves over n bytes that hold no newline.
func (s *scanner) advance(n int) {
	for _, c := range []byte(s.src[s.off : s.off+n]) {
		if c < utf8.RuneSelf || utf8.RuneStart(c) {
			s.col++ // count runes: every byte but continuation bytes
		}
	}
	s.off += n
}

// emit adds a token whose value is the n bytes at start, or, with n < 0,
// the value synthValue gives its type.
func (s *scanner) emit(typ lexer.TokenType, start mark, n int) {
	s.toks = append(s.toks, token{typ: int8(typ), off: int32(start.off), n: int32(n), line: int32(start.line), col: int32(start.col)})
}

var twoCharOps = []string{"==", "!=", "<=", ">=", "&&", "||", "+="}

func (s *scanner) run() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		start := s.pos()
		switch {
		case c == '\n':
			s.emit(tokEOL, start, 1)
			s.off++
			s.line++
			s.col = 1
		case c == ' ' || c == '\t' || c == '\r':
			s.advance(1)
		case c == '#':
			n := strings.IndexByte(s.src[s.off:], '\n')
			if n < 0 {
				n = len(s.src) - s.off
			}
			s.advance(n)
		case c == ';':
			s.emit(tokEOL, start, 1)
			s.advance(1)
		case c == '"':
			s.scanString(start)
		case isDigit(c) || (c == '.' && s.off+1 < len(s.src) && isDigit(s.src[s.off+1])):
			s.scanNumber(start)
		default:
			r, size := rune(c), 1
			if c >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(s.src[s.off:])
			}
			if r == '_' || unicode.IsLetter(r) {
				n := s.identLen()
				word := s.src[s.off : s.off+n]
				typ := tokIdent
				if keywords[word] {
					typ = tokKeyword
				} else if !isASCII(word) && !norm.NFC.IsNormalString(word) {
					if s.nfc == nil {
						s.nfc = map[int32]string{}
					}
					s.nfc[int32(s.off)] = norm.NFC.String(word)
				}
				s.emit(typ, start, n)
				s.advance(n)
				continue
			}
			if s.off+1 < len(s.src) {
				two := s.src[s.off : s.off+2]
				matched := false
				for _, op := range twoCharOps {
					if two == op {
						s.emit(tokPunct, start, 2)
						s.advance(2)
						matched = true
						break
					}
				}
				if matched {
					continue
				}
			}
			if strings.ContainsRune("+-*/%^@<>!=~:,.()[]{}", r) {
				s.emit(tokPunct, start, size)
				s.advance(size)
				continue
			}
			if r == utf8.RuneError && size == 1 {
				s.errs.Add(s.astPos(start), "invalid UTF-8 in source")
			} else if r == '&' || r == '|' {
				s.errs.Add(s.astPos(start), "unexpected %q (did you mean %q?)", string(r), string(r)+string(r))
			} else {
				s.errs.Add(s.astPos(start), "unexpected character %q", r)
			}
			s.advance(size)
		}
	}
	s.emit(tokEOF, s.pos(), 0)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func (s *scanner) identLen() int {
	n := 0
	for s.off+n < len(s.src) {
		c := s.src[s.off+n]
		if c < utf8.RuneSelf { // ASCII fast path
			if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				n++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(s.src[s.off+n:])
		// Combining marks continue a name: a name in NFD spells é as e
		// and U+0301.
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.In(r, unicode.No, unicode.Mn, unicode.Mc) {
			break
		}
		n += size
	}
	return n
}

// scanNumber reads 1, 0.5, .5, 1e-3, 2.5E+10.
func (s *scanner) scanNumber(start mark) {
	i := s.off
	for i < len(s.src) && isDigit(s.src[i]) {
		i++
	}
	if i < len(s.src) && s.src[i] == '.' && i+1 < len(s.src) && isDigit(s.src[i+1]) {
		i++
		for i < len(s.src) && isDigit(s.src[i]) {
			i++
		}
	} else if i < len(s.src) && s.src[i] == '.' && !(i+1 < len(s.src) && (isIdentStart(s.src[i+1:]))) {
		i++ // "1." is a number; "x.1" never reaches here and "1.e" is left alone
	}
	if i < len(s.src) && (s.src[i] == 'e' || s.src[i] == 'E') {
		j := i + 1
		if j < len(s.src) && (s.src[j] == '+' || s.src[j] == '-') {
			j++
		}
		if j < len(s.src) && isDigit(s.src[j]) {
			for j < len(s.src) && isDigit(s.src[j]) {
				j++
			}
			i = j
		}
	}
	s.emit(tokNumber, start, i-s.off)
	s.advance(i - s.off)
}

func isIdentStart(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	return r == '_' || unicode.IsLetter(r)
}

// scanString reads a double-quoted string with Go escapes; the token keeps the
// quotes and the lowering unquotes it.
func (s *scanner) scanString(start mark) {
	for i := s.off + 1; i < len(s.src) && s.src[i] != '\n'; i++ {
		if s.src[i] == '\\' {
			i++
			continue
		}
		if s.src[i] == '"' {
			s.emit(tokString, start, i+1-s.off)
			s.advance(i + 1 - s.off)
			return
		}
	}
	s.errs.Add(s.astPos(start), "unterminated string")
	// Skip to the end of the line so scanning can go on.
	n := strings.IndexByte(s.src[s.off:], '\n')
	if n < 0 {
		n = len(s.src) - s.off
	}
	s.emit(tokString, start, -1)
	s.advance(n)
}

// filter drops the newlines that do not end a statement.
func (s *scanner) filter() []token {
	var stack []bool // per open bracket: is it a model's { }, where newlines separate statements?
	// Filter in place: out never gets ahead of the token being read, except
	// when an EOL is inserted with nothing dropped yet, which copies first.
	out := s.toks[:0]
	aliased := true
	inBlock := func() bool { return len(stack) == 0 || stack[len(stack)-1] }
	for i, t := range s.toks {
		v := s.value(t)
		switch {
		case t.is(tokEOL):
			if !inBlock() {
				continue
			}
			if len(out) == 0 || out[len(out)-1].is(tokEOL) {
				continue
			}
			prev := out[len(out)-1]
			pv := s.value(prev)
			if (prev.is(tokPunct) || prev.is(tokKeyword)) && continuers[pv] && v == "\n" {
				continue
			}
			if prev.is(tokPunct) && (pv == "{" || pv == "(" || pv == "[") {
				continue
			}
			if next := nextSignificant(s.toks, i); next.is(tokKeyword) && v == "\n" {
				if nv := s.value(next); nv == "then" || nv == "else" {
					continue
				}
			}
			out = append(out, t)
			continue
		case t.is(tokKeyword) && statementKeywords[v] && !inBlock():
			// A statement keyword cannot stand inside ( ) or [ ]: a bracket
			// was left open. Close the brackets back to the enclosing block
			// so the statement starts afresh (the parser reports the bracket).
			for len(stack) > 0 && !stack[len(stack)-1] {
				stack = stack[:len(stack)-1]
			}
			if len(out) > 0 && !out[len(out)-1].is(tokEOL) {
				if aliased && len(out) == i {
					out = append(make([]token, 0, len(s.toks)+8), out...)
					aliased = false
				}
				out = append(out, token{typ: int8(tokEOL), off: t.off, n: -1, line: t.line, col: t.col})
			}
		case t.is(tokPunct) && (v == "(" || v == "["):
			stack = append(stack, false)
		case t.is(tokPunct) && v == "{":
			// `model NAME {`, `model NAME(X, Y) {` and `generated {` open
			// blocks; any other brace is a record.
			n := len(out)
			if n >= 1 && out[n-1].is(tokPunct) && s.value(out[n-1]) == ")" {
				n = s.openParen(out, n-1) // `model NAME(X, Y)`: look before the (
			}
			block := n >= 2 && out[n-1].is(tokIdent) && out[n-2].is(tokKeyword) && s.value(out[n-2]) == "model" ||
				n >= 1 && out[n-1].is(tokKeyword) && s.value(out[n-1]) == "generated" // `generated {` too
			stack = append(stack, block)
		case t.is(tokPunct) && (v == ")" || v == "]" || v == "}"):
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		out = append(out, t)
	}
	return out
}

// openParen is the index of the "(" that the ")" at out[i] closes, or 0
// when there is none.
func (s *scanner) openParen(out []token, i int) int {
	depth := 0
	for j := i; j >= 0; j-- {
		if !out[j].is(tokPunct) {
			continue
		}
		switch s.value(out[j]) {
		case ")":
			depth++
		case "(":
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return 0
}

func nextSignificant(toks []token, i int) token {
	for j := i + 1; j < len(toks); j++ {
		if !toks[j].is(tokEOL) {
			return toks[j]
		}
	}
	return toks[len(toks)-1]
}
