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
		if a := g.Model.Params; a != nil {
			if len(a.Names) == 0 {
				l.errs.Add(l.pos(a.Pos), "a model without data arguments is written `model %s { ... }`, without `()`", m.Name.Name)
			}
			seen := map[string]bool{}
			for _, p := range a.Names {
				if seen[p.Name] {
					l.errs.Add(l.pos(p.Pos), "data argument %q is named twice", p.Name)
				}
				seen[p.Name] = true
				m.Params = append(m.Params, l.ident(p))
			}
		}
		m.Body = l.entries(g.Model.Entries, false)
		for i, s := range m.Body {
			// The model's density must not depend on what is generated
			// from it, so the block comes last, as in Stan.
			if _, ok := s.(*ast.Generated); ok && i != len(m.Body)-1 {
				l.errs.Add(s.Pos(), "the `generated { ... }` block must be the last statement of the model")
			}
		}
		return m
	case g.Gen != nil:
		if top {
			l.errs.Add(l.pos(g.Pos), "a `generated { ... }` block belongs inside a model")
			return nil
		}
		gen := &ast.Generated{At: l.pos(g.Pos)}
		for _, s := range l.entries(g.Gen.Entries, false) {
			if a, ok := s.(*ast.Assign); ok {
				gen.Body = append(gen.Body, a)
			} else if s != nil {
				l.errs.Add(s.Pos(), "a `generated` block holds only `NAME = EXPR` statements")
			}
		}
		return gen
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
			l.errs.Add(lhs.Pos(), "a model holds only `NAME ~ DIST`, `DATA ~ DIST`, `NAME = EXPR` and `target += EXPR` statements")
			return nil
		}
		return &ast.ExprStmt{X: lhs}
	}
	rhs := l.expr(g.Rest.RHS)
	at := l.pos(g.Rest.Pos)
	switch g.Rest.Op {
	case "+=":
		if id, ok := lhs.(*ast.Ident); !ok || id.Name != "target" {
			l.errs.Add(at, "only `target += EXPR` adds to something; KML has no other `+=`")
			return nil
		}
		if top {
			l.errs.Add(at, "`target += EXPR` belongs inside a model: it adds to the model's log density")
			return nil
		}
		return &ast.Target{At: at, Value: rhs}
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
	l.errs = append(l.errs, g.Errs...)
	return g.X
}
