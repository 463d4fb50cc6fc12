package format

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/grammar"
)

// Width is the column a line should not pass: an expression that would is
// broken at its outermost list (call arguments, vector elements, record
// fields), then at its binary operators. A line can still pass it when
// nothing in it can break (a long string, a long name).
const Width = 100

const indentText = "  " // per level, as in the examples

// Source formats a whole KML file. It returns the syntax errors of src
// (an ast.ErrorList) unchanged when src does not parse, and never returns
// text whose syntax tree differs from src's: the result is parsed again
// and compared, and a difference is reported as an internal error rather
// than written.
func Source(filename string, src []byte) ([]byte, error) {
	text := string(src)
	file, err := grammar.Parse(filename, text)
	if err != nil {
		return nil, err
	}
	toks, err := grammar.Tokens(filename, text)
	if err != nil {
		return nil, err
	}
	p := newPrinter(toks)
	p.file(file)
	out := p.bytes()
	again, err := grammar.Parse(filename, string(out))
	if err != nil || !Equal(file, again) || p.ci != len(p.comments) || strings.Count(string(out), "#") < commentHashes(p.comments) {
		return nil, fmt.Errorf("%s: internal error: formatting would change the program; please report it with the file", filename)
	}
	return out, nil
}

func commentHashes(cs []comment) int {
	n := 0
	for _, c := range cs {
		n += strings.Count(c.text, "#")
	}
	return n
}

// comment is a '#' comment of the source.
type comment struct {
	text    string
	pos     ast.Pos
	off     int
	ownLine bool // nothing but blanks before it on its line
}

// line is one output line: its indentation, code and trailing comment.
type line struct {
	indent  int
	code    string
	comment string
	blank   bool
}

type printer struct {
	toks     []grammar.Token // code tokens only, then EOF
	at       map[[2]int]int  // line, column -> index in toks
	match    []int           // for a bracket, the index of its partner
	comments []comment
	ci       int // the next comment to print

	lines      []line
	indent     int
	cur        strings.Builder // the code of the current line
	width      int             // its width in runes
	lineIndent int             // its indentation
	deferred   []string        // comments that end the current line

	lastLine int  // the source line of the last thing printed
	first    bool // nothing printed yet in the current block or list
}

func newPrinter(all []grammar.Token) *printer {
	p := &printer{at: map[[2]int]int{}, first: true}
	lineHasCode := map[int]bool{}
	for _, t := range all {
		switch t.Kind {
		case grammar.Comment:
			p.comments = append(p.comments, comment{text: t.Text, pos: t.Pos, off: t.Offset, ownLine: !lineHasCode[t.Pos.Line]})
		case grammar.Newline:
			if t.Text == ";" {
				lineHasCode[t.Pos.Line] = true
			}
		default:
			lineHasCode[t.Pos.Line] = true
			p.at[[2]int{t.Pos.Line, t.Pos.Col}] = len(p.toks)
			p.toks = append(p.toks, t)
		}
	}
	p.match = make([]int, len(p.toks))
	var stack []int
	for i, t := range p.toks {
		p.match[i] = -1
		if t.Kind != grammar.Punct {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			if n := len(stack); n > 0 {
				p.match[stack[n-1]], p.match[i] = i, stack[n-1]
				stack = stack[:n-1]
			}
		}
	}
	return p
}

// tok is the index of the token at pos, or -1.
func (p *printer) tok(pos ast.Pos) int {
	if i, ok := p.at[[2]int{pos.Line, pos.Col}]; ok {
		return i
	}
	return -1
}

// ---- output ----

func (p *printer) write(s string) {
	if p.cur.Len() == 0 && len(p.deferred) == 0 {
		p.lineIndent = p.indent
	}
	p.cur.WriteString(s)
	p.width += utf8.RuneCountInString(s)
}

// column is where the next text written goes, counting from 0.
func (p *printer) column() int {
	if p.cur.Len() == 0 {
		return len(indentText) * p.indent
	}
	return len(indentText)*p.lineIndent + p.width
}

func (p *printer) atLineStart() bool { return p.cur.Len() == 0 }

// newline ends the current line, with the comments deferred to its end.
func (p *printer) newline() {
	if p.cur.Len() == 0 && len(p.deferred) == 0 {
		return
	}
	if p.cur.Len() == 0 {
		p.lineIndent = p.indent
	}
	p.lines = append(p.lines, line{indent: p.lineIndent, code: p.cur.String(), comment: strings.Join(p.deferred, " ")})
	p.cur.Reset()
	p.width = 0
	p.deferred = p.deferred[:0]
}

// blank ends the output so far with a blank line.
func (p *printer) blank() {
	if n := len(p.lines); n > 0 && !p.lines[n-1].blank {
		p.lines = append(p.lines, line{blank: true})
	}
}

// gap writes a blank line before an item that starts at source line l when
// the source had one and the item is not the first of its block or list.
func (p *printer) gap(l int) {
	if !p.first && l > p.lastLine+1 {
		p.blank()
	}
	p.first = false
}

// bytes joins the lines, aligning the trailing comments of consecutive
// lines of the same indentation as gofmt does.
func (p *printer) bytes() []byte {
	p.newline()
	lines := p.lines
	for len(lines) > 0 && lines[len(lines)-1].blank {
		lines = lines[:len(lines)-1]
	}
	var b bytes.Buffer
	for i := 0; i < len(lines); {
		j, width := i, 0
		// A run of lines with code and a trailing comment.
		for j < len(lines) && lines[j].comment != "" && lines[j].code != "" && lines[j].indent == lines[i].indent {
			width = max(width, utf8.RuneCountInString(lines[j].code))
			j++
		}
		if j == i {
			j = i + 1
			width = utf8.RuneCountInString(lines[i].code)
		}
		for _, l := range lines[i:j] {
			if l.blank {
				b.WriteByte('\n')
				continue
			}
			b.WriteString(strings.Repeat(indentText, l.indent))
			b.WriteString(l.code)
			if l.comment != "" {
				if l.code != "" {
					b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(l.code)+1))
				}
				b.WriteString(l.comment)
			}
			b.WriteByte('\n')
		}
		i = j
	}
	return b.Bytes()
}

// ---- comments ----

func (p *printer) before(c comment, pos ast.Pos) bool {
	return c.pos.Line < pos.Line || c.pos.Line == pos.Line && c.pos.Col < pos.Col
}

// flush prints the comments before pos: on lines of their own at a line
// start, else at the end of the current line.
func (p *printer) flush(pos ast.Pos) {
	for p.ci < len(p.comments) && p.before(p.comments[p.ci], pos) {
		c := p.comments[p.ci]
		if p.atLineStart() && len(p.deferred) == 0 {
			p.gap(c.pos.Line)
			p.lines = append(p.lines, line{indent: p.indent, comment: c.text})
		} else {
			p.deferred = append(p.deferred, c.text)
		}
		p.lastLine = c.pos.Line
		p.ci++
	}
}

// flushTrailing prints, at the end of the current line, the comments
// before pos that follow code on their source line.
func (p *printer) flushTrailing(pos ast.Pos) {
	for p.ci < len(p.comments) && !p.comments[p.ci].ownLine && p.before(p.comments[p.ci], pos) {
		p.deferred = append(p.deferred, p.comments[p.ci].text)
		p.lastLine = p.comments[p.ci].pos.Line
		p.ci++
	}
}

// commentBefore reports a comment yet to print before pos.
func (p *printer) commentBefore(pos ast.Pos) bool {
	return p.ci < len(p.comments) && p.before(p.comments[p.ci], pos)
}

// hasComment reports a comment between the first and last tokens of e.
func (p *printer) hasComment(e ast.Expr) bool {
	i, j := p.tok(e.Pos()), p.endTok(e)
	if i < 0 || j < 0 {
		return false
	}
	lo, hi := p.toks[i].Offset, p.toks[j].Offset
	k := sort.Search(len(p.comments), func(k int) bool { return p.comments[k].off > lo })
	return k < len(p.comments) && p.comments[k].off < hi
}

// ---- positions ----

// endTok is the index of the last token of e (before any closing
// parentheses around it), or -1.
func (p *printer) endTok(e ast.Expr) int {
	switch e := e.(type) {
	case *ast.Ident, *ast.String, *ast.Bool:
		return p.tok(e.Pos())
	case *ast.Number:
		i := p.tok(e.At)
		for i >= 0 && i < len(p.toks) && p.toks[i].Kind != grammar.Number {
			i++ // a folded minus: "-1", "- (1)"
		}
		return i
	case *ast.Vector:
		return p.partner(p.tok(e.At))
	case *ast.Record:
		return p.partner(p.tok(e.At))
	case *ast.Call:
		return p.partner(p.tok(e.Lparen))
	case *ast.Index:
		return p.partner(p.tok(e.Lbrack))
	case *ast.Selector:
		return p.tok(e.Name.At)
	case *ast.Binary:
		return p.endTok(e.Y)
	case *ast.Unary:
		return p.endTok(e.X)
	case *ast.If:
		return p.endTok(e.Else)
	case *ast.Slice:
		switch {
		case e.Hi != nil:
			return p.endTok(e.Hi)
		case e.Lo != nil:
			if j := p.endTok(e.Lo); j >= 0 {
				return j + 1
			}
			return -1
		}
		return p.tok(e.At)
	}
	return -1
}

func (p *printer) partner(i int) int {
	if i < 0 {
		return -1
	}
	return p.match[i]
}

// endLine is the source line where e ends.
func (p *printer) endLine(e ast.Expr) int {
	if j := p.endTok(e); j >= 0 {
		return p.toks[j].Pos.Line
	}
	return e.Pos().Line
}

// closing is the position of the bracket that closes the one at open.
func (p *printer) closing(open ast.Pos) ast.Pos {
	if j := p.partner(p.tok(open)); j >= 0 {
		return p.toks[j].Pos
	}
	return open
}

// ---- statements ----

func (p *printer) file(f *ast.File) {
	end := ast.Pos{Line: 1 << 30}
	p.block(f.Stmts, end)
	p.newline()
	p.flush(end)
}

// stmtStart is where s's first token is.
func (p *printer) stmtStart(s ast.Stmt) ast.Pos {
	if t, ok := s.(*ast.Target); ok {
		if i := p.tok(t.At); i > 0 {
			return p.toks[i-1].Pos // `target` before the +=
		}
	}
	return s.Pos()
}

// stmtEnd is the source line where s ends.
func (p *printer) stmtEnd(s ast.Stmt) int {
	switch s := s.(type) {
	case *ast.Let:
		return p.endLine(s.Value)
	case *ast.Fn:
		return p.endLine(s.Body)
	case *ast.Model:
		return p.closing(p.braceAfter(s.At)).Line
	case *ast.Generated:
		return p.closing(p.braceAfter(s.At)).Line
	case *ast.Import:
		return s.Path.At.Line
	case *ast.ExprStmt:
		return p.endLine(s.X)
	case *ast.Tilde:
		return p.endLine(s.Dist)
	case *ast.Assign:
		return p.endLine(s.Value)
	case *ast.Target:
		return p.endLine(s.Value)
	}
	return s.Pos().Line
}

// braceAfter is the position of the first '{' after the keyword at pos.
func (p *printer) braceAfter(pos ast.Pos) ast.Pos {
	for i := p.tok(pos); i >= 0 && i < len(p.toks); i++ {
		if p.toks[i].Kind == grammar.Punct && p.toks[i].Text == "{" {
			return p.toks[i].Pos
		}
	}
	return pos
}

// block prints statements one a line, with the comments and blank lines
// around them; end is where the block ends.
func (p *printer) block(stmts []ast.Stmt, end ast.Pos) {
	for i, s := range stmts {
		start := p.stmtStart(s)
		p.flush(start)
		p.gap(start.Line)
		p.stmt(s)
		p.lastLine = p.stmtEnd(s)
		next := end
		if i+1 < len(stmts) {
			next = p.stmtStart(stmts[i+1])
		}
		p.flushTrailing(next)
		p.newline()
	}
}

// body prints a braced block: `{`, statements indented, `}`.
func (p *printer) body(open ast.Pos, stmts []ast.Stmt) {
	closePos := p.closing(open)
	p.write("{")
	if len(stmts) == 0 && !p.commentBefore(closePos) {
		p.write("}")
		return
	}
	if len(stmts) > 0 {
		p.flushTrailing(p.stmtStart(stmts[0]))
	} else {
		p.flushTrailing(closePos)
	}
	p.newline()
	p.indent++
	saved := p.first
	p.first = true
	p.block(stmts, closePos)
	p.newline()
	p.flush(closePos)
	p.indent--
	p.first = saved
	p.write("}")
	p.lastLine = closePos.Line
}

func (p *printer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.Let:
		p.write("let " + s.Name.Name + " = ")
		p.expr(s.Value, 0)
	case *ast.Fn:
		names := make([]string, len(s.Params))
		for i, n := range s.Params {
			names[i] = n.Name
		}
		p.write("fn " + s.Name.Name + "(" + strings.Join(names, ", ") + ") = ")
		p.expr(s.Body, 0)
	case *ast.Model:
		p.write("model " + s.Name.Name)
		if len(s.Params) > 0 {
			names := make([]string, len(s.Params))
			for i, n := range s.Params {
				names[i] = n.Name
			}
			p.write("(" + strings.Join(names, ", ") + ")")
		}
		p.write(" ")
		p.body(p.braceAfter(s.At), s.Body)
	case *ast.Generated:
		p.write("generated ")
		stmts := make([]ast.Stmt, len(s.Body))
		for i, a := range s.Body {
			stmts[i] = a
		}
		p.body(p.braceAfter(s.At), stmts)
	case *ast.Import:
		p.write("import " + p.flat(s.Path))
	case *ast.ExprStmt:
		p.expr(s.X, 0)
	case *ast.Tilde:
		p.expr(s.LHS, 0)
		p.write(" ~ ")
		p.expr(s.Dist, 0)
	case *ast.Assign:
		p.write(s.Name.Name + " = ")
		p.expr(s.Value, 0)
	case *ast.Target:
		p.write("target += ")
		p.expr(s.Value, 0)
	default:
		panic(fmt.Sprintf("format: unknown statement %T", s))
	}
}

// ---- expressions ----

// Precedence levels, loosest first: the parser's binary levels 1 to 5
// (|| && comparisons + *), then prefix operators, ^ and postfix forms.
const (
	levelIf      = 0
	levelCmp     = 3
	levelUnary   = 6
	levelPow     = 7
	levelPostfix = 8
)

var binaryLevel = map[string]int{
	"||": 1, "&&": 2,
	"==": 3, "!=": 3, "<": 3, "<=": 3, ">": 3, ">=": 3,
	"+": 4, "-": 4,
	"*": 5, "/": 5, "%": 5, "@": 5,
	"^": levelPow,
}

func level(e ast.Expr) int {
	switch e := e.(type) {
	case *ast.If:
		return levelIf
	case *ast.Binary:
		return binaryLevel[e.Op]
	case *ast.Unary:
		return levelUnary
	case *ast.Number:
		if strings.HasPrefix(e.Text, "-") || e.Text == "" && e.Value < 0 {
			return levelUnary // a folded minus
		}
	}
	return levelPostfix
}

// operandParens says whether e, as an operand of a binary operator of the
// given level (on the left or the right), needs parentheses.
func operandParens(e ast.Expr, op int, left bool) bool {
	l := level(e)
	switch {
	case op == levelPow && left:
		return l < levelPostfix
	case op == levelPow:
		return l < levelUnary
	case left:
		return l < op || op == levelCmp && l == levelCmp // comparisons do not chain
	}
	return l <= op
}

// expr prints e, on one line if it fits in what is left of the line and
// holds no comment, else broken. suffix is the width of what must follow
// it on its line (a comma).
func (p *printer) expr(e ast.Expr, suffix int) {
	if p.fits(e, suffix) {
		p.flush(e.Pos())
		p.write(p.flat(e))
		return
	}
	p.flush(e.Pos())
	switch e := e.(type) {
	case *ast.Call:
		p.postfixOperand(e.Fn)
		p.list("(", ")", p.args(e), p.closing(e.Lparen))
	case *ast.Index:
		p.postfixOperand(e.X)
		items := make([]item, len(e.Indices))
		for i, x := range e.Indices {
			items[i] = item{value: x, start: x.Pos()}
		}
		p.list("[", "]", items, p.closing(e.Lbrack))
	case *ast.Vector:
		items := make([]item, len(e.Elems))
		rows := len(e.Elems) > 1
		for i, x := range e.Elems {
			items[i] = item{value: x, start: x.Pos()}
			if _, ok := x.(*ast.Vector); !ok {
				rows = false
			}
		}
		if rows { // a matrix: a row a line
			for i := range items {
				items[i].own = true
			}
		}
		p.list("[", "]", items, p.closing(e.At))
	case *ast.Record:
		items := make([]item, len(e.Fields))
		for i, f := range e.Fields {
			items[i] = item{name: f.Name.Name, value: f.Value, start: f.Name.At, own: true}
		}
		p.list("{", "}", items, p.closing(e.At))
	case *ast.Selector:
		p.postfixOperand(e.X)
		p.write("." + e.Name.Name)
	case *ast.Binary:
		op := binaryLevel[e.Op]
		if op == levelPow { // tight, and never broken
			p.operand(e.X, operandParens(e.X, op, true), 0)
			p.write("^")
			p.operand(e.Y, operandParens(e.Y, op, false), suffix)
			return
		}
		p.operand(e.X, operandParens(e.X, op, true), 0)
		p.write(" " + e.Op)
		paren := operandParens(e.Y, op, false)
		y := p.flatParen(e.Y, paren)
		switch {
		case !p.commentBefore(e.Y.Pos()) && !p.hasComment(e.Y) && p.column()+1+utf8.RuneCountInString(y)+suffix <= Width:
			p.write(" " + y)
		case !paren && !p.commentBefore(e.Y.Pos()) && p.hugs(e.Y):
			p.write(" ")
			p.expr(e.Y, suffix)
		default:
			p.flushTrailing(e.Y.Pos())
			p.indent++
			p.newline()
			p.operand(e.Y, paren, suffix)
			p.indent--
		}
	case *ast.Unary:
		p.write(e.Op)
		p.operand(e.X, unaryParens(e.X), suffix)
	case *ast.If:
		// if C1 then A
		//   else if C2 then B
		//   else C
		// with `then A` on a line of its own, one level in, when it does
		// not fit.
		p.indent++
		for {
			p.write("if ")
			p.operand(e.Cond, ifParens(e.Cond), 0)
			then := " then " + p.flatParen(e.Then, ifParens(e.Then))
			if !p.commentsWithin(e.Cond.Pos(), e.Else.Pos()) && !p.hasComment(e.Then) && p.column()+utf8.RuneCountInString(then) <= Width {
				p.write(then)
			} else {
				p.flushTrailing(e.Then.Pos())
				p.indent++
				p.newline()
				p.write("then ")
				p.operand(e.Then, ifParens(e.Then), 0)
				p.indent--
			}
			p.flushTrailing(e.Else.Pos())
			p.newline()
			p.write("else ")
			next, ok := e.Else.(*ast.If)
			if !ok {
				p.expr(e.Else, suffix)
				break
			}
			p.flush(next.At)
			e = next
		}
		p.indent--
	default:
		p.write(p.flat(e))
	}
}

// hugs reports whether e, a list, can start on the current line and break
// inside its brackets.
func (p *printer) hugs(e ast.Expr) bool {
	head := ""
	switch e := e.(type) {
	case *ast.Call:
		head = p.flat(e.Fn) + "("
	case *ast.Vector, *ast.Record:
		head = "["
	default:
		return false
	}
	return p.column()+1+utf8.RuneCountInString(head) <= Width
}

func (p *printer) fits(e ast.Expr, suffix int) bool {
	return !p.hasComment(e) && p.column()+utf8.RuneCountInString(p.flat(e))+suffix <= Width
}

// unaryParens says whether x, the operand of a prefix operator, needs
// parentheses: -x^2 is -(x^2), as in mathematics.
func unaryParens(x ast.Expr) bool { return level(x) < levelUnary }

// ifParens says whether the condition or the then-branch of an if needs
// parentheses: never, but a nested if reads better in them.
func ifParens(e ast.Expr) bool {
	_, ok := e.(*ast.If)
	return ok
}

// operand prints e, in parentheses if paren.
func (p *printer) operand(e ast.Expr, paren bool, suffix int) {
	if !paren {
		p.expr(e, suffix)
		return
	}
	p.write("(")
	p.expr(e, suffix+1)
	p.write(")")
}

func (p *printer) postfixOperand(e ast.Expr) {
	p.operand(e, level(e) < levelPostfix, 0)
}

// item is an element of a bracketed list: a value, named or not.
type item struct {
	name  string // for a named argument or a record field
	value ast.Expr
	start ast.Pos
	own   bool // on a line of its own when the list breaks
}

func (p *printer) args(c *ast.Call) []item {
	var items []item
	for _, a := range c.Args {
		items = append(items, item{value: a, start: a.Pos()})
	}
	for _, a := range c.Named {
		items = append(items, item{name: a.Name.Name, value: a.Value, start: a.Name.At, own: true})
	}
	return items
}

// list prints a broken bracketed list: the opening bracket ends its line,
// the items follow one level deeper, each with a trailing comma, and the
// closing bracket starts a line of its own. Named items have a line each;
// positional ones fill lines.
func (p *printer) list(open, close string, items []item, closePos ast.Pos) {
	if len(items) == 1 && !breakable(items[0].value) && !p.hasComment(items[0].value) && !p.commentsWithin(items[0].start, closePos) {
		// Breaking would gain nothing: the item cannot break itself.
		p.write(open + p.flatItem(items[0]) + close)
		return
	}
	// Positional items fill lines when each fits on a line of its own;
	// else each has one.
	fill := true
	for _, it := range items {
		if it.name == "" && (p.hasComment(it.value) || len(indentText)*(p.indent+1)+utf8.RuneCountInString(p.flat(it.value))+1 > Width) {
			fill = false
		}
	}
	if !fill {
		for i := range items {
			items[i].own = true
		}
	}
	p.write(open)
	next := closePos
	if len(items) > 0 {
		next = items[0].start
	}
	p.flushTrailing(next)
	p.indent++
	p.newline()
	savedFirst := p.first
	p.first = true
	for i, it := range items {
		next := closePos
		if i+1 < len(items) {
			next = items[i+1].start
		}
		if p.atLineStart() {
			p.flush(it.start)
			p.gap(it.start.Line)
		}
		if it.name != "" {
			p.write(it.name + ": ")
		}
		p.expr(it.value, 1)
		p.write(",")
		p.lastLine = p.endLine(it.value)
		p.flushTrailing(next)
		if len(p.deferred) > 0 || it.own || i+1 == len(items) || !p.fillsNext(items[i+1], next) {
			p.newline()
		} else {
			p.write(" ")
		}
	}
	p.flush(closePos)
	p.newline()
	p.indent--
	p.first = savedFirst
	p.write(close)
	p.lastLine = closePos.Line
}

func breakable(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Call, *ast.Vector, *ast.Record, *ast.Index, *ast.Binary, *ast.Unary, *ast.If:
		return true
	}
	return false
}

func (p *printer) flatItem(it item) string {
	if it.name != "" {
		return it.name + ": " + p.flat(it.value)
	}
	return p.flat(it.value)
}

// commentsWithin reports a comment yet to print between from and to.
func (p *printer) commentsWithin(from, to ast.Pos) bool {
	for _, c := range p.comments[p.ci:] {
		if p.before(c, to) {
			if !p.before(c, from) {
				return true
			}
			continue
		}
		break
	}
	return false
}

// fillsNext reports whether the next positional item fits on the current
// line after the one just printed.
func (p *printer) fillsNext(it item, start ast.Pos) bool {
	if it.own || p.commentBefore(start) || p.hasComment(it.value) {
		return false
	}
	return p.column()+1+utf8.RuneCountInString(p.flat(it.value))+1 <= Width
}

// ---- one-line forms ----

// flat is e on one line.
func (p *printer) flat(e ast.Expr) string {
	var b strings.Builder
	p.flatTo(&b, e)
	return b.String()
}

func (p *printer) flatParen(e ast.Expr, paren bool) string {
	if paren {
		return "(" + p.flat(e) + ")"
	}
	return p.flat(e)
}

func (p *printer) flatTo(b *strings.Builder, e ast.Expr) {
	paren := func(x ast.Expr, yes bool) {
		if yes {
			b.WriteByte('(')
		}
		p.flatTo(b, x)
		if yes {
			b.WriteByte(')')
		}
	}
	switch e := e.(type) {
	case *ast.Ident:
		b.WriteString(e.Name)
	case *ast.Number:
		if e.Text != "" {
			b.WriteString(e.Text)
		} else {
			b.WriteString(strconv.FormatFloat(e.Value, 'g', -1, 64))
		}
	case *ast.String:
		// The source's spelling: its escapes are the author's.
		if i := p.tok(e.At); i >= 0 && p.toks[i].Kind == grammar.String {
			b.WriteString(p.toks[i].Text)
		} else {
			b.WriteString(strconv.Quote(e.Value))
		}
	case *ast.Bool:
		b.WriteString(strconv.FormatBool(e.Value))
	case *ast.Vector:
		b.WriteByte('[')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			p.flatTo(b, x)
		}
		b.WriteByte(']')
	case *ast.Record:
		b.WriteByte('{')
		for i, f := range e.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name.Name + ": ")
			p.flatTo(b, f.Value)
		}
		b.WriteByte('}')
	case *ast.Selector:
		paren(e.X, level(e.X) < levelPostfix)
		b.WriteString("." + e.Name.Name)
	case *ast.Slice:
		// (h + 1):(h + 100) keeps its parentheses: h + 1:h + 100 means
		// the same but hides the colon.
		if e.Lo != nil {
			paren(e.Lo, level(e.Lo) < levelUnary)
		}
		b.WriteByte(':')
		if e.Hi != nil {
			paren(e.Hi, level(e.Hi) < levelUnary)
		}
	case *ast.Index:
		paren(e.X, level(e.X) < levelPostfix)
		b.WriteByte('[')
		for i, x := range e.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			p.flatTo(b, x)
		}
		b.WriteByte(']')
	case *ast.Call:
		paren(e.Fn, level(e.Fn) < levelPostfix)
		b.WriteByte('(')
		for i, x := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			p.flatTo(b, x)
		}
		for i, a := range e.Named {
			if i > 0 || len(e.Args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Name.Name + ": ")
			p.flatTo(b, a.Value)
		}
		b.WriteByte(')')
	case *ast.Binary:
		op := binaryLevel[e.Op]
		paren(e.X, operandParens(e.X, op, true))
		if op == levelPow {
			b.WriteString("^")
		} else {
			b.WriteString(" " + e.Op + " ")
		}
		paren(e.Y, operandParens(e.Y, op, false))
	case *ast.Unary:
		b.WriteString(e.Op)
		paren(e.X, unaryParens(e.X))
	case *ast.If:
		b.WriteString("if ")
		paren(e.Cond, ifParens(e.Cond))
		b.WriteString(" then ")
		paren(e.Then, ifParens(e.Then))
		b.WriteString(" else ")
		p.flatTo(b, e.Else)
	default:
		panic(fmt.Sprintf("format: unknown expression %T", e))
	}
}
