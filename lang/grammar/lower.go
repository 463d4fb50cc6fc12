package grammar

import (
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/kml-lang/kml/lang/ast"
)

// lowerer turns grammar structs into ast nodes, collecting the errors that
// the grammar alone cannot express (a `~` outside a model, a missing
// statement separator, a malformed slice).
type lowerer struct {
	file string
	errs ast.ErrorList
}

func (l *lowerer) pos(p lexer.Position) ast.Pos {
	return ast.Pos{File: l.file, Line: p.Line, Col: p.Column}
}

func (l *lowerer) ident(g *gIdent) *ast.Ident {
	return &ast.Ident{At: l.pos(g.Pos), Name: g.Name}
}

// stmt lowers a statement; top says whether it stands at the top level (true)
// or inside a model body.
func (l *lowerer) stmt(g *gStmt, top bool) ast.Stmt {
	switch {
	case g.Let != nil:
		if !top {
			l.errs.Add(l.pos(g.Pos), "`let` is not allowed inside a model; write `%s = ...` for a derived quantity", g.Let.Name.Name)
			return nil
		}
		return &ast.Let{At: l.pos(g.Pos), Name: l.ident(g.Let.Name), Value: l.expr(g.Let.Value)}
	case g.Fn != nil:
		if !top {
			l.errs.Add(l.pos(g.Pos), "functions are defined at the top level, not inside a model")
			return nil
		}
		fn := &ast.Fn{At: l.pos(g.Pos), Name: l.ident(g.Fn.Name), Body: l.expr(g.Fn.Body)}
		for _, p := range g.Fn.Params {
			fn.Params = append(fn.Params, l.ident(p))
		}
		return fn
	case g.Model != nil:
		if !top {
			l.errs.Add(l.pos(g.Pos), "a model cannot be declared inside another model")
			return nil
		}
		m := &ast.Model{At: l.pos(g.Pos), Name: l.ident(g.Model.Name)}
		m.Body = l.entries(g.Model.Entries, false)
		return m
	case g.Import != nil:
		if !top {
			l.errs.Add(l.pos(g.Pos), "`import` belongs at the top level of a file")
			return nil
		}
		return &ast.Import{At: l.pos(g.Pos), Path: l.str(g.Import.Path.Pos, g.Import.Path.Value)}
	case g.Simple != nil:
		return l.simple(g.Simple, top)
	}
	l.errs.Add(l.pos(g.Pos), "empty statement")
	return nil
}

// entries lowers a statement list with its separators, reporting two
// statements that share a line without a `;`.
func (l *lowerer) entries(es []*gEntry, top bool) []ast.Stmt {
	var out []ast.Stmt
	needSep := false
	for _, e := range es {
		if e.Sep {
			needSep = false
			continue
		}
		if needSep {
			l.errs.Add(l.pos(e.Pos), "expected a new line or `;` before this statement")
		}
		if s := l.stmt(e.Stmt, top); s != nil {
			out = append(out, s)
		}
		needSep = true
	}
	return out
}

func (l *lowerer) simple(g *gSimple, top bool) ast.Stmt {
	lhs := l.expr(g.LHS)
	if g.Rest == nil {
		if !top {
			l.errs.Add(lhs.Pos(), "a model holds only `NAME ~ DIST`, `DATA ~ DIST` and `NAME = EXPR` statements")
			return nil
		}
		return &ast.ExprStmt{X: lhs}
	}
	rhs := l.expr(g.Rest.RHS)
	at := l.pos(g.Rest.Pos)
	switch g.Rest.Op {
	case "~":
		if top {
			l.errs.Add(at, "`~` statements belong inside a model: `model NAME { ... }`")
			return nil
		}
		return &ast.Tilde{At: at, LHS: lhs, Dist: rhs}
	default: // "="
		id, ok := lhs.(*ast.Ident)
		if top {
			if ok {
				l.errs.Add(lhs.Pos(), "to bind a name write `let %s = ...`", id.Name)
			} else {
				l.errs.Add(at, "cannot assign to an expression; did you mean `==`?")
			}
			return nil
		}
		if !ok {
			l.errs.Add(lhs.Pos(), "the left of `=` in a model must be a name")
			return nil
		}
		return &ast.Assign{At: at, Name: id, Value: rhs}
	}
}

func (l *lowerer) str(p lexer.Position, quoted string) *ast.String {
	s, err := strconv.Unquote(quoted)
	if err != nil {
		l.errs.Add(l.pos(p), "invalid string literal %s: %v", quoted, err)
	}
	return &ast.String{At: l.pos(p), Value: s}
}

func (l *lowerer) expr(g *gExpr) ast.Expr {
	if g.If != nil {
		return &ast.If{At: l.pos(g.If.Pos), Cond: l.expr(g.If.Cond), Then: l.expr(g.If.Then), Else: l.expr(g.If.Else)}
	}
	x := l.and(g.Or.Left)
	for _, r := range g.Or.Rest {
		x = &ast.Binary{OpPos: l.pos(r.Pos), Op: r.Op, X: x, Y: l.and(r.Right)}
	}
	return x
}

func (l *lowerer) and(g *gAnd) ast.Expr {
	x := l.cmp(g.Left)
	for _, r := range g.Rest {
		x = &ast.Binary{OpPos: l.pos(r.Pos), Op: r.Op, X: x, Y: l.cmp(r.Right)}
	}
	return x
}

func (l *lowerer) cmp(g *gCmp) ast.Expr {
	x := l.add(g.Left)
	for i, r := range g.Rest {
		if i > 0 {
			l.errs.Add(l.pos(r.Pos), "comparisons do not chain: write `a < b && b < c`")
		}
		x = &ast.Binary{OpPos: l.pos(r.Pos), Op: r.Op, X: x, Y: l.add(r.Right)}
	}
	return x
}

func (l *lowerer) add(g *gAdd) ast.Expr {
	x := l.mul(g.Left)
	for _, r := range g.Rest {
		x = &ast.Binary{OpPos: l.pos(r.Pos), Op: r.Op, X: x, Y: l.mul(r.Right)}
	}
	return x
}

func (l *lowerer) mul(g *gMul) ast.Expr {
	x := l.unary(g.Left)
	for _, r := range g.Rest {
		x = &ast.Binary{OpPos: l.pos(r.Pos), Op: r.Op, X: x, Y: l.unary(r.Right)}
	}
	return x
}

func (l *lowerer) unary(g *gUnary) ast.Expr {
	if g.Pow != nil {
		return l.pow(g.Pow)
	}
	x := l.unary(g.X)
	// Fold a minus into a number literal so that -1 prints and checks as one.
	if n, ok := x.(*ast.Number); ok && g.Op == "-" {
		return &ast.Number{At: l.pos(g.Pos), Value: -n.Value, Text: "-" + n.Text}
	}
	return &ast.Unary{OpPos: l.pos(g.Pos), Op: g.Op, X: x}
}

func (l *lowerer) pow(g *gPow) ast.Expr {
	base := l.postfix(g.Base)
	if g.Exp == nil {
		return base
	}
	return &ast.Binary{OpPos: l.pos(g.Exp.Pos), Op: "^", X: base, Y: l.unary(g.Exp.X)}
}

func (l *lowerer) postfix(g *gPostfix) ast.Expr {
	x := l.primary(g.Prim)
	for _, op := range g.Ops {
		switch {
		case op.Call != nil:
			c := &ast.Call{Fn: x, Lparen: l.pos(op.Pos)}
			for _, a := range op.Call.Args {
				v := l.expr(a.Value)
				if a.Name == "" {
					if len(c.Named) > 0 {
						l.errs.Add(v.Pos(), "positional argument after a named one")
					}
					c.Args = append(c.Args, v)
					continue
				}
				c.Named = append(c.Named, &ast.NamedArg{Name: &ast.Ident{At: l.pos(a.Pos), Name: a.Name}, Value: v})
			}
			x = c
		case op.Index != nil:
			ix := &ast.Index{X: x, Lbrack: l.pos(op.Pos)}
			for _, it := range op.Index.Items {
				ix.Indices = append(ix.Indices, l.indexItem(it))
			}
			x = ix
		case op.Field != nil:
			x = &ast.Selector{X: x, Name: l.ident(op.Field)}
		}
	}
	return x
}

func (l *lowerer) indexItem(g *gIndexItem) ast.Expr {
	if !g.Colon {
		if g.Lo == nil {
			l.errs.Add(l.pos(g.Pos), "empty index")
			return &ast.Number{At: l.pos(g.Pos), Value: 1, Text: "1"}
		}
		if g.Hi != nil {
			l.errs.Add(l.pos(g.Hi.Pos), "expected `,`, `:` or `]` in an index")
		}
		return l.expr(g.Lo)
	}
	s := &ast.Slice{At: l.pos(g.Pos)}
	if g.Lo != nil {
		s.Lo = l.expr(g.Lo)
	}
	if g.Hi != nil {
		s.Hi = l.expr(g.Hi)
	}
	return s
}

func (l *lowerer) primary(g *gPrimary) ast.Expr {
	at := l.pos(g.Pos)
	switch {
	case g.Number != nil:
		v, err := strconv.ParseFloat(*g.Number, 64)
		if err != nil {
			l.errs.Add(at, "invalid number %s", *g.Number)
		}
		return &ast.Number{At: at, Value: v, Text: *g.Number}
	case g.String != nil:
		return l.str(g.Pos, *g.String)
	case g.Bool != nil:
		return &ast.Bool{At: at, Value: *g.Bool == "true"}
	case g.Vector != nil:
		v := &ast.Vector{At: at}
		for _, e := range g.Vector.Elems {
			v.Elems = append(v.Elems, l.expr(e))
		}
		return v
	case g.Record != nil:
		r := &ast.Record{At: at}
		seen := map[string]bool{}
		for _, f := range g.Record.Fields {
			if seen[f.Name.Name] {
				l.errs.Add(l.pos(f.Name.Pos), "duplicate field %q in record", f.Name.Name)
			}
			seen[f.Name.Name] = true
			r.Fields = append(r.Fields, &ast.Field{Name: l.ident(f.Name), Value: l.expr(f.Value)})
		}
		return r
	case g.Paren != nil:
		return l.expr(g.Paren)
	case g.Ident != nil:
		return &ast.Ident{At: at, Name: *g.Ident}
	}
	l.errs.Add(at, "expected an expression")
	return &ast.Number{At: at}
}
