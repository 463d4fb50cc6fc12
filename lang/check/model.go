package check

import (
	"github.com/kml-lang/kml/lang/ast"
)

// modelInfo is what the checker knows while it walks a model's body.
type modelInfo struct {
	// later maps each name the model declares to where, so a use before the
	// declaration gets a message that says so.
	later map[string]ast.Pos
}

func enclosingModel(s *Scope) *modelInfo {
	for ; s != nil; s = s.parent {
		if s.model != nil {
			return s.model
		}
	}
	return nil
}

// model checks a model body. Statements run in order, so a name is visible
// from the statement after its declaration. A `~` statement is classified by
// its left side: a name not bound outside the model declares a parameter (or
// a latent function, when the right side is gp(...)); `NAME[K]` with NAME
// unbound declares a vector parameter of K elements; anything else is data
// bound outside the model, an observation.
func (c *Checker) model(m *ast.Model, outer *Scope) {
	if m.Params != nil {
		// The data arguments are data bound outside the body: a `~` on one
		// is an observation, and a size may use them.
		args := NewScope(outer)
		for _, p := range m.Params {
			c.define(args, &Binding{Name: p.Name, Kind: DataArg, Pos: p.At})
		}
		outer = args
	}
	info := &modelInfo{later: map[string]ast.Pos{}}
	for _, s := range m.Body {
		switch s := s.(type) {
		case *ast.Tilde:
			if name, _ := declaredName(s.LHS, outer); name != nil {
				if _, dup := info.later[name.Name]; !dup {
					info.later[name.Name] = name.At
				}
			}
		case *ast.Assign:
			if _, dup := info.later[s.Name.Name]; !dup {
				info.later[s.Name.Name] = s.Name.At
			}
		case *ast.Generated:
			for _, a := range s.Body {
				if _, dup := info.later[a.Name.Name]; !dup {
					info.later[a.Name.Name] = a.Name.At
				}
			}
		}
	}
	scope := NewScope(outer)
	scope.model = info
	for _, s := range m.Body {
		switch s := s.(type) {
		case *ast.Tilde:
			c.tilde(s, scope, outer)
		case *ast.Assign:
			c.expr(s.Value, scope)
			c.declare(scope, outer, &Binding{Name: s.Name.Name, Kind: Derived, Pos: s.Name.At})
		case *ast.Target:
			c.expr(s.Value, scope)
		case *ast.Generated:
			for _, a := range s.Body {
				c.expr(a.Value, scope)
				c.declare(scope, outer, &Binding{Name: a.Name.Name, Kind: Derived, Pos: a.Name.At})
			}
		default:
			c.errs.Add(s.Pos(), "a model holds only `~`, `=`, `target +=` and `generated { ... }` statements")
		}
	}
}

// declaredName returns the name a `~` statement's left side would declare:
// an identifier, or the identifier of `NAME[K]`, that is not bound outside
// the model (builtins do not count: a parameter may be called `mean`).
func declaredName(lhs ast.Expr, outer *Scope) (*ast.Ident, ast.Expr) {
	unbound := func(id *ast.Ident) bool {
		b := outer.Lookup(id.Name)
		return b == nil || b.Kind == Builtin
	}
	switch l := lhs.(type) {
	case *ast.Ident:
		if unbound(l) {
			return l, nil
		}
	case *ast.Index:
		if id, ok := l.X.(*ast.Ident); ok && unbound(id) && len(l.Indices) == 1 {
			if _, isSlice := l.Indices[0].(*ast.Slice); !isSlice {
				return id, l.Indices[0]
			}
		}
	}
	return nil, nil
}

func (c *Checker) tilde(s *ast.Tilde, scope, outer *Scope) {
	name, size := declaredName(s.LHS, outer)
	if name != nil && scope.Local(name.Name) != nil {
		// A second `~` for a name declared in this model: the name is not
		// data, so this cannot be an observation either.
		c.errs.Add(name.At, "%q is already declared in this model at %s", name.Name, shortPos(scope.Local(name.Name).Pos, name.At))
		c.expr(s.Dist, scope)
		return
	}
	switch {
	case name != nil && size != nil:
		s.Kind, s.Name, s.Size = ast.VecParam, name, size
		// The size is fixed when the model is made: it may use data only.
		c.expr(size, outer)
	case name != nil && isCallTo(s.Dist, "gp"):
		s.Kind, s.Name = ast.Latent, name
	case name != nil:
		s.Kind, s.Name = ast.Param, name
	default:
		s.Kind = ast.Observe
		c.expr(s.LHS, scope)
		ast.Inspect(s.LHS, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if b := scope.Local(id.Name); b != nil {
					c.errs.Add(id.At, "the left of `~` must be data bound outside the model, but %q is a %s of the model", id.Name, b.Kind)
				}
			}
			return true
		})
	}
	c.expr(s.Dist, scope)
	if name != nil {
		kind := ModelParam
		if s.Kind == ast.Latent {
			kind = Latent
		}
		c.declare(scope, outer, &Binding{Name: name.Name, Kind: kind, Pos: name.At})
	}
}

// declare binds a model-level name, which must be new in the model and must
// not hide data bound outside it.
func (c *Checker) declare(scope, outer *Scope, b *Binding) {
	if old := outer.Lookup(b.Name); old != nil && old.Kind != Builtin && b.Kind == Derived {
		c.errs.Add(b.Pos, "%q is already bound outside the model (at %s); give the derived quantity another name", b.Name, shortPos(old.Pos, b.Pos))
		return
	}
	c.define(scope, b)
}

func isCallTo(e ast.Expr, name string) bool {
	call, ok := e.(*ast.Call)
	if !ok {
		return false
	}
	id, ok := call.Fn.(*ast.Ident)
	return ok && id.Name == name
}
