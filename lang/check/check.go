package check

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/internal/relpath"
	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/grammar"
)

// Universe is the set of builtins a program can call.
type Universe interface {
	Lookup(name string) (*Signature, bool)
	Names() []string
}

// Importer loads the file named by `import "PATH"` written at pos. Key
// identifies the file (its cleaned absolute path) so that a file imported
// twice is checked and evaluated once and a cycle can be seen.
type Importer interface {
	Import(pos ast.Pos, path string) (key string, f *ast.File, err error)
}

// Keyer is an Importer that also gives the key of a file it did not import
// (the one being checked), or "" when that file has none (REPL input).
type Keyer interface {
	Key(file string) string
}

// Checker checks files and expressions. Its zero value checks programs that
// use no builtins and no imports; set Universe and Importer for real ones.
// A Checker remembers the files it has imported, so one Checker serves a
// whole run or REPL session.
type Checker struct {
	Universe Universe
	Importer Importer

	universe *Scope
	exports  map[string][]*Binding
	active   []string // import chain being checked, for cycle reports
	errs     ast.ErrorList
}

// Root returns the outermost scope, which holds the builtins; a file's top
// level is a NewScope(c.Root()).
func (c *Checker) Root() *Scope {
	if c.universe == nil {
		c.universe = UniverseScope(c.Universe)
	}
	return c.universe
}

// File checks f, binding its top-level names in scope (which the caller
// makes: NewScope(c.Root()) for a file, the session's scope at the REPL). It
// returns every error found, as an ast.ErrorList sorted by position.
func (c *Checker) File(f *ast.File, scope *Scope) error {
	c.errs = nil
	// The file itself heads the import chain: importing it, directly or
	// through others, is a cycle at that import, not a second copy of it
	// whose names then clash with its own.
	if k, ok := c.Importer.(Keyer); ok {
		if key := k.Key(f.Name); key != "" {
			c.active = append(c.active, key)
			defer func() { c.active = c.active[:len(c.active)-1] }()
		}
	}
	c.file(f, scope)
	return c.takeErrors()
}

// Expr checks a lone expression in scope.
func (c *Checker) Expr(e ast.Expr, scope *Scope) error {
	c.errs = nil
	c.expr(e, scope)
	return c.takeErrors()
}

func (c *Checker) takeErrors() error {
	errs := c.errs
	c.errs = nil
	errs.Sort()
	return errs.Err()
}

func (c *Checker) file(f *ast.File, scope *Scope) {
	for _, s := range f.Stmts {
		c.stmt(s, scope)
	}
}

func (c *Checker) stmt(s ast.Stmt, scope *Scope) {
	switch s := s.(type) {
	case *ast.Let:
		c.expr(s.Value, scope)
		c.define(scope, &Binding{Name: s.Name.Name, Kind: Let, Pos: s.Name.At})
	case *ast.Fn:
		sig := &Signature{Name: s.Name.Name}
		for _, p := range s.Params {
			sig.Params = append(sig.Params, Param{Name: p.Name})
		}
		// Defined before the body is checked, so a fn may call itself.
		c.define(scope, &Binding{Name: s.Name.Name, Kind: Func, Pos: s.Name.At, Sig: sig})
		body := NewScope(scope)
		for _, p := range s.Params {
			c.define(body, &Binding{Name: p.Name, Kind: FuncParam, Pos: p.At})
		}
		c.expr(s.Body, body)
	case *ast.Model:
		c.model(s, scope)
		b := &Binding{Name: s.Name.Name, Kind: ModelName, Pos: s.Name.At}
		if s.Params != nil {
			// A model with data arguments is called with its data.
			b.Sig = &Signature{Name: s.Name.Name}
			for _, p := range s.Params {
				b.Sig.Params = append(b.Sig.Params, Param{Name: p.Name})
			}
		}
		c.define(scope, b)
	case *ast.Import:
		c.importFile(s, scope)
	case *ast.ExprStmt:
		c.expr(s.X, scope)
	default:
		c.errs.Add(s.Pos(), "this statement is only allowed inside a model")
	}
}

// define binds b in scope, reporting a second binding of a name in one scope.
func (c *Checker) define(scope *Scope, b *Binding) {
	if old := scope.Local(b.Name); old != nil && old.Kind != Builtin {
		c.errs.Add(b.Pos, "%q is already defined at %s; a name is bound once in a scope", b.Name, shortPos(old.Pos, b.Pos))
		return
	}
	scope.Define(b)
}

// shortPos writes p as LINE:COL when it is in the same file as at.
func shortPos(p, at ast.Pos) string {
	if !p.IsValid() {
		return "an earlier input"
	}
	if p.File == at.File {
		return fmt.Sprintf("line %d:%d", p.Line, p.Col)
	}
	return p.String()
}

func (c *Checker) importFile(s *ast.Import, scope *Scope) {
	if c.Importer == nil {
		c.errs.Add(s.Path.At, "imports are not available here")
		return
	}
	key, f, err := c.Importer.Import(s.Path.At, s.Path.Value)
	if err != nil {
		if list, ok := err.(ast.ErrorList); ok {
			c.errs = append(c.errs, list...)
		} else if e, ok := err.(*ast.Error); ok {
			c.errs = append(c.errs, e)
		} else {
			c.errs.Add(s.Path.At, "cannot import %q: %v", s.Path.Value, err)
		}
		return
	}
	for i, k := range c.active {
		if k == key {
			chain := append(append([]string{}, c.active[i:]...), key)
			c.errs.Add(s.Path.At, "import cycle: %s", strings.Join(relpath.ShowAll(chain), " → "))
			return
		}
	}
	exports, done := c.exports[key]
	if !done {
		c.active = append(c.active, key)
		fscope := NewScope(c.Root())
		c.file(f, fscope)
		c.active = c.active[:len(c.active)-1]
		exports = fscope.Bindings()
		if c.exports == nil {
			c.exports = map[string][]*Binding{}
		}
		c.exports[key] = exports
	}
	for _, b := range exports {
		old := scope.Local(b.Name)
		if old == b {
			// The same definition reached twice (a file imported again, or
			// through two files that import it: a diamond) is one name.
			continue
		}
		if old != nil && old.Kind != Builtin {
			c.errs.Add(s.Path.At, "%q from %s is already defined at %s", b.Name, s.Path.Value, shortPos(old.Pos, s.Path.At))
			continue
		}
		scope.Define(b)
	}
}

// CurrentImports returns the key of the file being checked when an Importer
// is called, so relative paths can resolve against it ("" at the top).
func (c *Checker) CurrentImports() []string { return c.active }

func (c *Checker) expr(e ast.Expr, scope *Scope) {
	switch e := e.(type) {
	case *ast.Ident:
		c.resolve(e, scope)
	case *ast.Number, *ast.String, *ast.Bool:
	case *ast.Vector:
		for _, x := range e.Elems {
			c.expr(x, scope)
		}
	case *ast.Record:
		for _, f := range e.Fields {
			c.expr(f.Value, scope)
		}
	case *ast.Selector:
		c.expr(e.X, scope)
	case *ast.Slice:
		if e.Lo != nil {
			c.expr(e.Lo, scope)
		}
		if e.Hi != nil {
			c.expr(e.Hi, scope)
		}
	case *ast.Index:
		c.expr(e.X, scope)
		if len(e.Indices) > 2 {
			c.errs.Add(e.Lbrack, "at most two indices (row, column) are allowed, got %d", len(e.Indices))
		}
		for _, x := range e.Indices {
			c.expr(x, scope)
		}
	case *ast.Call:
		c.call(e, scope)
	case *ast.Binary:
		c.expr(e.X, scope)
		c.expr(e.Y, scope)
	case *ast.Unary:
		c.expr(e.X, scope)
	case *ast.If:
		c.expr(e.Cond, scope)
		c.expr(e.Then, scope)
		c.expr(e.Else, scope)
	}
}

func (c *Checker) resolve(id *ast.Ident, scope *Scope) *Binding {
	if b := scope.Lookup(id.Name); b != nil {
		return b
	}
	if m := enclosingModel(scope); m != nil {
		if at, ok := m.later[id.Name]; ok {
			c.errs.Add(id.At, "%q is used before it is declared (line %d); declare it earlier in the model", id.Name, at.Line)
			return nil
		}
	}
	if h := grammar.ForeignName(id.Name); h != "" {
		c.errs.Add(id.At, "undefined: %s; %s", id.Name, h)
	} else if s := Closest(id.Name, scope.Visible()); s != "" {
		c.errs.Add(id.At, "undefined: %s; did you mean %s?", id.Name, s)
	} else {
		c.errs.Add(id.At, "undefined: %s", id.Name)
	}
	return nil
}

func (c *Checker) call(e *ast.Call, scope *Scope) {
	var sig *Signature
	if id, ok := e.Fn.(*ast.Ident); ok {
		if b := c.resolve(id, scope); b != nil {
			sig = b.Sig
		}
	} else {
		c.expr(e.Fn, scope)
	}
	if sig != nil {
		n := len(c.errs)
		slots, rest, extra := sig.Bind(e, &c.errs)
		if len(c.errs) == n {
			e.Binding = &CallBinding{Sig: sig, Slots: slots, Rest: rest, Extra: extra}
		}
	}
	for _, a := range e.Args {
		c.expr(a, scope)
	}
	for _, a := range e.Named {
		c.expr(a.Value, scope)
	}
}
