package grammar

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kml-lang/kml/lang/ast"
)

// gExpr is an expression. Participle hands it the token stream through its
// Parseable interface and it parses by precedence climbing straight into the
// syntax tree: participle's reflective grammar stays at the level of
// statements, where it is cheap, and expressions — most of any program's
// tokens — parse about twenty times faster than through one participle struct
// per precedence level (BenchmarkParseCheck10k).
type gExpr struct {
	X ast.Expr
	// Errs are mistakes that do not stop the parse (a duplicate record
	// field, a positional argument after a named one); lowering reports them.
	Errs ast.ErrorList
}

var _ participle.Parseable = (*gExpr)(nil)

// Parse reads one expression, returning participle.NextMatch when the next
// token cannot start one.
func (g *gExpr) Parse(lex *lexer.PeekingLexer) error {
	if !startsExpr(lex.Peek()) {
		return participle.NextMatch
	}
	p := &exprParser{lex: lex}
	x, err := p.expr()
	if err != nil {
		return err
	}
	g.X, g.Errs = x, p.errs
	return nil
}

func startsExpr(t *lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokNumber, tokString:
		return true
	case tokKeyword:
		return t.Value == "if" || t.Value == "true" || t.Value == "false"
	case tokPunct:
		return t.Value == "(" || t.Value == "[" || t.Value == "{" || t.Value == "-" || t.Value == "!"
	}
	return false
}

// Binary operator precedences, loosest first. ^ is handled with the
// operands, as it binds tighter than a prefix minus on its left.
var precedence = map[string]int{
	"||": 1, "&&": 2,
	"==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
	"+": 4, "-": 4,
	"*": 5, "/": 5, "%": 5, "@": 5,
}

const cmpPrec = 3

type exprParser struct {
	lex  *lexer.PeekingLexer
	errs ast.ErrorList
	// depth bounds how deeply the expression being read nests (see
	// MaxNesting).
	depth int
}

// MaxNesting is how deeply an expression may nest: parentheses, brackets,
// braces, calls, prefix operators, a ^ chain and the operands of a chain of
// binary operators all count. Every stage after the parser walks the tree
// recursively, and 300,000 nested parentheses overflowed the goroutine stack
// (a Go fatal error, not a message); no program written by hand nests a
// hundredth of this, and a generated one gets a positioned error instead.
const MaxNesting = 10000

// nest enters levels of nesting, or fails at token at when the expression
// then nests deeper than MaxNesting; the caller undoes it with
// p.depth -= levels.
func (p *exprParser) nest(levels int, at *lexer.Token) error {
	p.depth += levels
	if p.depth > MaxNesting {
		return &participle.UnexpectedTokenError{Unexpected: *at, Expect: fmt.Sprintf("an expression nested at most %d deep (split it with let)", MaxNesting)}
	}
	return nil
}

func astPos(p lexer.Position) ast.Pos {
	return ast.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }

func (p *exprParser) is(typ lexer.TokenType, value string) bool {
	t := p.lex.Peek()
	return t.Type == typ && t.Value == value
}

func (p *exprParser) punct(value string) bool { return p.is(tokPunct, value) }

// expect consumes the punctuation value or fails with participle's error.
func (p *exprParser) expect(typ lexer.TokenType, value string) (*lexer.Token, error) {
	t := p.lex.Peek()
	if t.Type != typ || t.Value != value {
		return nil, &participle.UnexpectedTokenError{Unexpected: *t, Expect: strconv.Quote(value)}
	}
	return p.lex.Next(), nil
}

func (p *exprParser) unexpected(want string) error {
	return &participle.UnexpectedTokenError{Unexpected: *p.lex.Peek(), Expect: want}
}

func (p *exprParser) expr() (ast.Expr, error) {
	if err := p.nest(1, p.peek()); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	if p.is(tokKeyword, "if") {
		at := astPos(p.lex.Next().Pos)
		cond, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokKeyword, "then"); err != nil {
			return nil, err
		}
		then, err := p.expr()
		if err != nil {
			return nil, err
		}
		if _, err := p.expect(tokKeyword, "else"); err != nil {
			return nil, err
		}
		els, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &ast.If{At: at, Cond: cond, Then: then, Else: els}, nil
	}
	return p.binary(1)
}

// binary parses operators of precedence minPrec and tighter, left
// associatively; comparisons do not chain.
func (p *exprParser) binary(minPrec int) (ast.Expr, error) {
	lhs, err := p.power()
	if err != nil {
		return nil, err
	}
	lastCmp := false
	spine := 0
	defer func() { p.depth -= spine }()
	for {
		t := p.peek()
		prec, ok := precedence[t.Value]
		if t.Type != tokPunct || !ok || prec < minPrec {
			return lhs, nil
		}
		p.lex.Next()
		if prec == cmpPrec && lastCmp {
			p.errs.Add(astPos(t.Pos), "comparisons do not chain: write `a < b && b < c`")
		}
		if !startsExpr(p.peek()) || p.is(tokKeyword, "if") {
			return nil, p.unexpected("an operand")
		}
		spine++
		if err := p.nest(1, t); err != nil {
			return nil, err
		}
		rhs, err := p.binary(prec + 1)
		if err != nil {
			return nil, err
		}
		lhs = &ast.Binary{OpPos: astPos(t.Pos), Op: t.Value, X: lhs, Y: rhs}
		lastCmp = prec == cmpPrec
	}
}

// power parses prefix operators, a postfix expression and a
// right-associative ^ chain: -x^2 is -(x^2) and 2^-1 is 2^(-1).
func (p *exprParser) power() (ast.Expr, error) {
	var prefixes []*lexer.Token
	for p.punct("-") || p.punct("!") {
		prefixes = append(prefixes, p.lex.Next())
	}
	// A level for the right of ^ (a ^ chain recurses here), and below one
	// for each prefix operator left as a node of its own.
	levels := 0
	defer func() { p.depth -= levels }()
	x, err := p.postfix()
	if err != nil {
		return nil, err
	}
	if p.punct("^") {
		op := p.lex.Next()
		levels++
		if err := p.nest(1, op); err != nil {
			return nil, err
		}
		rhs, err := p.power()
		if err != nil {
			return nil, err
		}
		x = &ast.Binary{OpPos: astPos(op.Pos), Op: "^", X: x, Y: rhs}
	}
	i := len(prefixes) - 1
	if n, ok := x.(*ast.Number); ok {
		// Fold the minuses next to a number literal into it so -1 prints and
		// checks as one; all of them at once, so a long run of minuses costs
		// linear, not quadratic, work.
		j := i
		for j >= 0 && prefixes[j].Value == "-" {
			j--
		}
		if k := i - j; k > 0 {
			v := n.Value
			if k%2 == 1 {
				v = -v
			}
			x = &ast.Number{At: astPos(prefixes[j+1].Pos), Value: v, Text: strings.Repeat("-", k) + n.Text}
			i = j
		}
	}
	if i >= 0 {
		levels += i + 1
		if err := p.nest(i+1, prefixes[0]); err != nil {
			return nil, err
		}
	}
	for ; i >= 0; i-- {
		op := prefixes[i]
		x = &ast.Unary{OpPos: astPos(op.Pos), Op: op.Value, X: x}
	}
	return x, nil
}

func (p *exprParser) postfix() (ast.Expr, error) {
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	chain := 0 // each call, index and field wraps x in one more node
	defer func() { p.depth -= chain }()
	for {
		if p.punct("(") || p.punct("[") || p.punct(".") {
			chain++
			if err := p.nest(1, p.peek()); err != nil {
				return nil, err
			}
		}
		switch {
		case p.punct("("):
			x, err = p.call(x)
		case p.punct("["):
			x, err = p.index(x)
		case p.punct("."):
			p.lex.Next()
			t := p.peek()
			if t.Type != tokIdent {
				return nil, p.unexpected("a field name")
			}
			p.lex.Next()
			x = &ast.Selector{X: x, Name: &ast.Ident{At: astPos(t.Pos), Name: t.Value}}
		default:
			return x, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// list parses `item (, item)* ,?` up to the closing punctuation.
func (p *exprParser) list(close string, item func() error) error {
	for !p.punct(close) {
		if err := item(); err != nil {
			return err
		}
		if p.punct(",") {
			p.lex.Next()
			continue
		}
		if !p.punct(close) {
			return p.unexpected(strconv.Quote(",") + " | " + strconv.Quote(close))
		}
	}
	p.lex.Next()
	return nil
}

func (p *exprParser) call(fn ast.Expr) (ast.Expr, error) {
	c := &ast.Call{Fn: fn, Lparen: astPos(p.lex.Next().Pos)}
	err := p.list(")", func() error {
		v, err := p.expr()
		if err != nil {
			return err
		}
		if !p.punct(":") {
			if len(c.Named) > 0 {
				p.errs.Add(v.Pos(), "positional argument after a named one")
			}
			c.Args = append(c.Args, v)
			return nil
		}
		p.lex.Next()
		val, err := p.expr()
		if err != nil {
			return err
		}
		name, ok := v.(*ast.Ident)
		if !ok {
			p.errs.Add(v.Pos(), "the name of a named argument must be a plain name, as in f(x, seed: 7)")
			return nil
		}
		c.Named = append(c.Named, &ast.NamedArg{Name: name, Value: val})
		return nil
	})
	return c, err
}

func (p *exprParser) index(x ast.Expr) (ast.Expr, error) {
	ix := &ast.Index{X: x, Lbrack: astPos(p.lex.Next().Pos)}
	if p.punct("]") {
		p.errs.Add(astPos(p.peek().Pos), "empty index")
	}
	err := p.list("]", func() error {
		at := astPos(p.peek().Pos)
		var lo ast.Expr
		if !p.punct(":") {
			var err error
			if lo, err = p.expr(); err != nil {
				return err
			}
			if !p.punct(":") {
				if !p.punct(",") && !p.punct("]") {
					return p.unexpected(`"," | ":" | "]"`)
				}
				ix.Indices = append(ix.Indices, lo)
				return nil
			}
		}
		p.lex.Next() // the colon
		s := &ast.Slice{At: at, Lo: lo}
		if !p.punct(",") && !p.punct("]") {
			hi, err := p.expr()
			if err != nil {
				return err
			}
			s.Hi = hi
		}
		ix.Indices = append(ix.Indices, s)
		return nil
	})
	return ix, err
}

func (p *exprParser) primary() (ast.Expr, error) {
	t := p.peek()
	at := astPos(t.Pos)
	switch {
	case t.Type == tokNumber:
		p.lex.Next()
		v, err := strconv.ParseFloat(t.Value, 64)
		if err != nil {
			p.errs.Add(at, "invalid number %s", t.Value)
		}
		return &ast.Number{At: at, Value: v, Text: t.Value}, nil
	case t.Type == tokString:
		p.lex.Next()
		s, err := strconv.Unquote(t.Value)
		if err != nil {
			p.errs.Add(at, "invalid string literal %s: %v", t.Value, err)
		}
		return &ast.String{At: at, Value: s}, nil
	case t.Type == tokKeyword && (t.Value == "true" || t.Value == "false"):
		p.lex.Next()
		return &ast.Bool{At: at, Value: t.Value == "true"}, nil
	case t.Type == tokIdent:
		p.lex.Next()
		return &ast.Ident{At: at, Name: t.Value}, nil
	case t.Type == tokPunct && t.Value == "(":
		p.lex.Next()
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		_, err = p.expect(tokPunct, ")")
		return x, err
	case t.Type == tokPunct && t.Value == "[":
		p.lex.Next()
		v := &ast.Vector{At: at}
		err := p.list("]", func() error {
			x, err := p.expr()
			if err == nil {
				v.Elems = append(v.Elems, x)
			}
			return err
		})
		return v, err
	case t.Type == tokPunct && t.Value == "{":
		p.lex.Next()
		r := &ast.Record{At: at}
		seen := map[string]bool{}
		err := p.list("}", func() error {
			name := p.peek()
			if name.Type != tokIdent {
				return p.unexpected("a field name")
			}
			p.lex.Next()
			if _, err := p.expect(tokPunct, ":"); err != nil {
				return err
			}
			x, err := p.expr()
			if err != nil {
				return err
			}
			if seen[name.Value] {
				p.errs.Add(astPos(name.Pos), "duplicate field %q in record", name.Value)
			}
			seen[name.Value] = true
			r.Fields = append(r.Fields, &ast.Field{Name: &ast.Ident{At: astPos(name.Pos), Name: name.Value}, Value: x})
			return nil
		})
		return r, err
	}
	return nil, p.unexpected("an expression")
}
