package grammar

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kml-lang/kml/lang/ast"
)

var quotedTokens = regexp.MustCompile(`^"[^"]+"( \| "[^"]+")*$`)

var (
	stmtParser = participle.MustBuild[gStmt](
		participle.Lexer(definition{}),
		participle.UseLookahead(1),
	)
)

// Parse parses a whole file. It returns the statements it could parse and,
// as an ast.ErrorList sorted by position, every syntax error it found: each
// top-level statement is parsed on its own, so an error in one does not stop
// the next from being read.
func Parse(filename, src string) (*ast.File, error) {
	sc, toks := scanCompact(filename, src)
	errs := sc.errs
	chunks := sc.splitStatements(toks)
	// Statements parse independently, so a long file is parsed by several
	// workers; the results are kept in statement order.
	stmts := make([]ast.Stmt, len(chunks))
	chunkErrs := make([]ast.ErrorList, len(chunks))
	parseChunk := func(i int) {
		c := &chunks[i]
		if u := c.unclosed; u != nil {
			chunkErrs[i] = ast.ErrorList{{Pos: ast.Pos{File: filename, Line: int(u.line), Col: int(u.col)}, Msg: fmt.Sprintf("%q is never closed", sc.value(*u))}}
			return
		}
		g, err := parseTokens(stmtParser, &compactList{src: &sc.source, toks: c.toks, eof: c.eof})
		if err != nil {
			// A scan error in this statement already explains what follows.
			if !scanErrorWithin(errs, c.toks) {
				chunkErrs[i] = ast.ErrorList{convertError(filename, err)}
				if h := sc.habits(c.toks, true); len(h) > 0 {
					chunkErrs[i] = h // what to write instead explains the error better
				}
			}
			return
		}
		lw := &lowerer{file: filename}
		stmts[i] = lw.stmt(g, true)
		chunkErrs[i] = lw.errs
		if h := sc.habits(c.toks, len(lw.errs) > 0); len(h) > 0 {
			chunkErrs[i] = h
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(chunks)/parallelChunks)
	if workers <= 1 {
		for i := range chunks {
			parseChunk(i)
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(chunks); i = int(next.Add(1)) - 1 {
					parseChunk(i)
				}
			})
		}
		wg.Wait()
	}
	file := &ast.File{Name: filename}
	for i, s := range stmts {
		if s != nil {
			file.Stmts = append(file.Stmts, s)
		}
		errs = append(errs, chunkErrs[i]...)
	}
	errs.Sort()
	return file, errs.Err()
}

// parallelChunks is the number of statements per extra parsing worker:
// below it, starting goroutines costs more than it saves.
const parallelChunks = 256

// ParseExpr parses src as a single expression (the REPL's `:type EXPR`).
func ParseExpr(filename, src string) (ast.Expr, error) {
	toks, errs := scan(filename, src)
	if len(errs) > 0 {
		return nil, errs
	}
	// An expression ignores statement ends, which may only trail it.
	var kept []lexer.Token
	for _, t := range toks {
		if t.Type != tokEOL {
			kept = append(kept, t)
		}
	}
	peek, err := lexer.Upgrade(&tokenList{toks: kept})
	if err != nil {
		return nil, err
	}
	var g gExpr
	if err := g.Parse(peek); err != nil {
		if err == participle.NextMatch {
			err = &participle.UnexpectedTokenError{Unexpected: *peek.Peek(), Expect: "an expression"}
		}
		return nil, ast.ErrorList{convertError(filename, err)}
	}
	if t := peek.Peek(); t.Type != tokEOF {
		return nil, ast.ErrorList{convertError(filename, &participle.UnexpectedTokenError{Unexpected: *t})}
	}
	if len(g.Errs) > 0 {
		return nil, g.Errs
	}
	return g.X, nil
}

func parseTokens[G any](p *participle.Parser[G], toks lexer.Lexer) (*G, error) {
	peek, err := lexer.Upgrade(toks)
	if err != nil {
		return nil, err
	}
	return p.ParseFromLexer(peek)
}

// chunk is one top-level statement's tokens (a view of the scanned tokens)
// and the EOF token that ends it; unclosed is the bracket it leaves open,
// if any.
type chunk struct {
	toks     []token
	eof      token
	unclosed *token
}

// splitStatements cuts the token stream at the statement ends that lie
// outside every bracket. A model's body keeps its own statement ends. A
// statement keyword (let, fn, model, import) inside an open bracket cannot
// belong there, so the bracket is reported as never closed and a new
// statement starts at the keyword: one missing ")" does not swallow the rest
// of the file.
func (s *scanner) splitStatements(toks []token) []chunk {
	var out []chunk
	var open []token
	start := 0
	flush := func(end int, at token) {
		if end > start {
			c := chunk{toks: toks[start:end:end], eof: token{typ: int8(tokEOF), off: at.off, line: at.line, col: at.col}}
			if len(open) > 0 {
				u := open[0] // a copy: the stack is reused
				c.unclosed = &u
			}
			out = append(out, c)
		}
		open = open[:0]
		start = end
	}
	for i, t := range toks[:len(toks)-1] {
		v := s.value(t)
		switch {
		case t.is(tokPunct) && (v == "(" || v == "[" || v == "{"):
			open = append(open, t)
		case t.is(tokPunct) && (v == ")" || v == "]" || v == "}"):
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case t.is(tokEOL) && len(open) == 0:
			flush(i, t)
			start = i + 1
		case t.is(tokKeyword) && len(open) > 0 && statementKeywords[v] && !s.insideModel(open):
			flush(i, t)
		}
	}
	flush(len(toks)-1, toks[len(toks)-1])
	return out
}

var statementKeywords = map[string]bool{"let": true, "fn": true, "model": true, "import": true}

// insideModel reports an open model body among the brackets, where `let`
// gets its own, better, error from the lowering.
func (s *scanner) insideModel(open []token) bool {
	for _, t := range open {
		if s.value(t) == "{" {
			return true
		}
	}
	return false
}

func scanErrorWithin(errs ast.ErrorList, chunk []token) bool {
	first, last := chunk[0], chunk[len(chunk)-1]
	for _, e := range errs {
		after := e.Pos.Line > int(first.line) || e.Pos.Line == int(first.line) && e.Pos.Col >= int(first.col)
		before := e.Pos.Line < int(last.line) || e.Pos.Line == int(last.line) && e.Pos.Col <= int(last.col)
		if after && before {
			return true
		}
	}
	return false
}

// convertError turns participle's error into an ast.Error with a message in
// KML's words.
func convertError(file string, err error) *ast.Error {
	var ut *participle.UnexpectedTokenError
	if errors.As(err, &ut) {
		pos := ast.Pos{File: file, Line: ut.Unexpected.Pos.Line, Col: ut.Unexpected.Pos.Column}
		msg := "unexpected " + describe(ut.Unexpected)
		if t := ut.Unexpected; t.Type == tokKeyword && (t.Value == "let" || t.Value == "fn" || t.Value == "model" || t.Value == "import") {
			msg += "; start each statement on a new line or after `;`"
		} else if hint := expectHint(ut); hint != "" {
			msg += ", expected " + hint
		}
		return &ast.Error{Pos: pos, Msg: msg}
	}
	var pe participle.Error
	if errors.As(err, &pe) {
		p := pe.Position()
		return &ast.Error{Pos: ast.Pos{File: file, Line: p.Line, Col: p.Column}, Msg: pe.Message()}
	}
	return &ast.Error{Pos: ast.Pos{File: file}, Msg: err.Error()}
}

func describe(t lexer.Token) string {
	switch t.Type {
	case tokEOF:
		return "end of input"
	case tokEOL:
		if t.Value == ";" {
			return `";"`
		}
		return "end of line"
	case tokIdent:
		return fmt.Sprintf("name %q", t.Value)
	case tokNumber:
		return "number " + t.Value
	case tokString:
		return "string " + t.Value
	}
	return fmt.Sprintf("%q", t.Value)
}

// expectHint keeps participle's expectation when it is short enough to help.
func expectHint(ut *participle.UnexpectedTokenError) string {
	msg := ut.Message()
	i := strings.Index(msg, "(expected ")
	if i < 0 {
		return ""
	}
	hint := strings.TrimSuffix(msg[i+len("(expected "):], ")")
	// Only hints made of literal tokens help; the rest name grammar structs.
	if strings.HasPrefix(hint, "a ") || strings.HasPrefix(hint, "an ") {
		return hint
	}
	if !quotedTokens.MatchString(hint) || len(hint) > 40 {
		return ""
	}
	// `"," | "]"` reads as "`,` or `]`".
	parts := strings.Split(hint, " | ")
	for i, p := range parts {
		parts[i] = "`" + strings.Trim(p, `"`) + "`"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " or " + parts[len(parts)-1]
}

// Incomplete reports whether src stops in the middle of a statement: inside
// an open bracket or model body, or after an operator, a comma or a keyword
// that needs more. The REPL reads another line when it does.
func Incomplete(src string) bool {
	toks, _ := scan("<input>", src)
	depth, ifs := 0, 0 // open brackets; `if`s still waiting for their `else`
	var last *lexer.Token
	for i := range toks {
		t := &toks[i]
		switch {
		case t.Type == tokEOF || t.Type == tokEOL:
			continue
		case t.Type == tokPunct && (t.Value == "(" || t.Value == "[" || t.Value == "{"):
			depth++
		case t.Type == tokPunct && (t.Value == ")" || t.Value == "]" || t.Value == "}"):
			depth--
		case t.Type == tokKeyword && t.Value == "if":
			ifs++
		case t.Type == tokKeyword && t.Value == "else":
			ifs--
		}
		last = t
	}
	if depth > 0 || ifs > 0 {
		return true
	}
	return last != nil && (last.Type == tokPunct || last.Type == tokKeyword) && continuers[last.Value]
}
