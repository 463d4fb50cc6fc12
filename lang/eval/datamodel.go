package eval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
)

// ModelFamily is the value of `model NAME(X, Y) { ... }`: a model that takes
// its data as arguments, as Stan's data block or PyMC's set_data. It is not
// fitted itself; calling it, `NAME(x: ..., y: ...)`, makes a *Model for that
// data, so one declaration can be fitted to many data sets inside a fn or a
// map. lang/model keeps, per family, what compiling an instance found,
// keyed by the shapes of its arguments (Cached), so instances whose data
// have the shapes of an earlier one are not laid out again.
type ModelFamily struct {
	Name string
	decl *ast.Model
	env  *Env
	sig  *check.Signature

	mu    sync.Mutex
	cache map[string]any
}

var _ Callable = (*ModelFamily)(nil)

func newModelFamily(decl *ast.Model, env *Env) *ModelFamily {
	sig := &check.Signature{Name: decl.Name.Name}
	for _, p := range decl.Params {
		sig.Params = append(sig.Params, check.Param{Name: p.Name})
	}
	return &ModelFamily{Name: decl.Name.Name, decl: decl, env: env, sig: sig, cache: map[string]any{}}
}

// Decl is the family's declaration.
func (f *ModelFamily) Decl() *ast.Model { return f.decl }

func (f *ModelFamily) Type() string                { return "model" }
func (f *ModelFamily) Signature() *check.Signature { return f.sig }

func (f *ModelFamily) String() string {
	return fmt.Sprintf("model %s, which takes data: call it with its data, %s", f.sig, f.CallHint())
}

// Describe is the family in messages where a model was wanted.
func (f *ModelFamily) Describe() string {
	return fmt.Sprintf("model %s without its data (call it with its data: %s)", f.sig, f.CallHint())
}

// CallHint is how the family is called: `m(x: ..., y: ...)`.
func (f *ModelFamily) CallHint() string {
	args := make([]string, len(f.decl.Params))
	for i, p := range f.decl.Params {
		args[i] = p.Name + ": ..."
	}
	return fmt.Sprintf("%s(%s)", f.Name, strings.Join(args, ", "))
}

// Cached returns the value lang/model keeps under key for this family,
// building it when there is none (build's nil result is not kept).
func (f *ModelFamily) Cached(key string, build func() any) (v any, hit bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if v, ok := f.cache[key]; ok {
		return v, true
	}
	if v = build(); v != nil {
		f.cache[key] = v
	}
	return v, false
}

// Store keeps v under key for this family.
func (f *ModelFamily) Store(key string, v any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cache[key] = v
}

// Lookup returns what is kept under key.
func (f *ModelFamily) Lookup(key string) (any, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.cache[key]
	return v, ok
}

// dataArg is one data argument of an instance: where the call gave it,
// and its value.
type dataArg struct {
	name string
	pos  ast.Pos
	val  Value
}

// instantiate makes the model for one call of f: the arguments are bound
// in a scope of their own inside the family's, and vector parameters take
// their sizes from them.
func (th *Thread) instantiate(f *ModelFamily, vals []Value, poss []ast.Pos) (Value, error) {
	menv := NewEnv(f.env)
	args := make([]dataArg, len(f.decl.Params))
	shapes := make([]string, len(f.decl.Params))
	for i, p := range f.decl.Params {
		v := vals[i]
		switch v.(type) {
		case *ModelFamily, *Model, *Func, *Builtin:
			return nil, ast.Errorf(poss[i], "%s: %s must be data, got %s", f.Name, p.Name, Describe(v))
		}
		menv.Define(p.Name, v)
		args[i] = dataArg{name: p.Name, pos: poss[i], val: v}
		shapes[i] = p.Name + ": " + shapeOf(v)
	}
	m, err := th.makeModel(f.decl, menv)
	if err != nil {
		return nil, (&Model{Name: f.Name, decl: f.decl, Family: f, args: args}).BlameData(err)
	}
	m.Family, m.args = f, args
	for _, p := range m.Params {
		if p.Size > 0 {
			shapes = append(shapes, fmt.Sprintf("%s[%d]", p.Name, p.Size))
		}
	}
	m.Shapes = strings.Join(shapes, ", ")
	if instanceCheck != nil {
		if err := instanceCheck(th, m); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// instanceCheck checks a new instance of a model family against its data
// at the call, so that data that do not fit are an error at the argument
// there rather than at the first fit. lang/model sets it
// (SetInstanceCheck): checking runs the model, which this package cannot
// do without importing lang/model, which imports it.
var instanceCheck func(th *Thread, m *Model) error

// SetInstanceCheck makes check the check of every new instance of a model
// family; lang/model calls it once, when it is loaded.
func SetInstanceCheck(check func(th *Thread, m *Model) error) { instanceCheck = check }

// shapeOf is the shape of a data argument as the compile cache keys it: a
// vector's length and a matrix's dimensions; a number's value, because a
// vector parameter's size may be one.
func shapeOf(v Value) string {
	switch v := v.(type) {
	case Num:
		return "number " + v.String()
	case *Vec:
		return fmt.Sprintf("vector[%d]", len(v.Data))
	case *Mat:
		r, c := v.Dims()
		return fmt.Sprintf("matrix[%d×%d]", r, c)
	case Str:
		return "string " + string(v)
	case Bool:
		return "bool " + v.String()
	}
	return v.Type()
}

// BlameData places an error found while running an instance of a model
// family (compiling it, or fixing its sizes) at the argument of the call
// that made the instance, and says the argument's shape: the argument that
// is an operand of a failing `@` (with the shape it should have), else the
// data an observation at the failing `~` observes, else the first data
// argument the failing statement uses. The original position is kept as a
// note. Errors of a model declared without data arguments, and
// interruptions, are returned as they are.
func (m *Model) BlameData(err error) error {
	var ae *ast.Error
	if m.Family == nil || !errors.As(err, &ae) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	stmt := stmtAt(m.decl.Body, ae.Pos)
	if stmt == nil || ae.Pos.Line < m.decl.At.Line {
		return err
	}
	a, wants := m.blamed(stmt, ae)
	if a == nil {
		return err
	}
	msg := ae.Msg
	if wants != "" {
		msg = wants + "; " + msg
	}
	given := ""
	switch v := a.val.(type) {
	case nil:
	case Num:
		given = " (number " + v.String() + ")"
	default:
		given = " (" + Describe(v) + ")"
	}
	notes := append([]string{fmt.Sprintf("in model %s at %s", m.Name, ae.Pos)}, ae.Notes...)
	return &ast.Error{Pos: a.pos, Msg: fmt.Sprintf("%s: %s%s does not fit the model: %s", m.Name, a.name, given, msg),
		Notes: notes, Cause: &dataError{err}}
}

// dataError marks an error BlameData placed at a call's argument.
type dataError struct{ err error }

func (e *dataError) Error() string { return e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// IsDataError reports whether err is data that do not fit a model, placed
// at the argument of the call by BlameData.
func IsDataError(err error) bool {
	var d *dataError
	return errors.As(err, &d)
}

// blamed is the data argument an error in statement stmt is placed at, and
// what shape it should have when that is known ("" otherwise).
func (m *Model) blamed(stmt ast.Stmt, ae *ast.Error) (*dataArg, string) {
	arg := func(e ast.Expr) *dataArg {
		id, ok := e.(*ast.Ident)
		if !ok {
			return nil
		}
		for i := range m.args {
			if m.args[i].name == id.Name && m.args[i].pos.IsValid() {
				return &m.args[i]
			}
		}
		return nil
	}
	var mm interface{ Wants(left bool) string }
	var mat *MatmulMismatch
	var elem *ElementwiseMismatch
	switch {
	case errors.As(ae, &mat):
		mm = mat
	case errors.As(ae, &elem):
		mm = elem
	}
	if mm != nil {
		var found *dataArg
		var wants string
		ast.Inspect(stmt, func(n ast.Node) bool {
			b, ok := n.(*ast.Binary)
			if !ok || found != nil || b.OpPos != ae.Pos {
				return found == nil
			}
			if a := arg(b.X); a != nil {
				found, wants = a, fmt.Sprintf("`%s` wants %s", formatBare(b), mm.Wants(true))
			} else if a := arg(b.Y); a != nil {
				found, wants = a, fmt.Sprintf("`%s` wants %s", formatBare(b), mm.Wants(false))
			}
			return false
		})
		if found != nil {
			return found, wants
		}
	}
	if t, ok := stmt.(*ast.Tilde); ok && t.Kind == ast.Observe && t.At == ae.Pos {
		if a := arg(t.LHS); a != nil {
			return a, ""
		}
	}
	used := map[string]bool{}
	ast.Inspect(stmt, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			used[id.Name] = true
		}
		return true
	})
	for i, a := range m.args {
		if used[a.name] && a.pos.IsValid() {
			return &m.args[i], ""
		}
	}
	return nil, ""
}

// formatBare is e as written, without the parentheses ast.Format puts
// around a binary expression.
func formatBare(e ast.Expr) string {
	s := ast.Format(e)
	if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		return s[1 : len(s)-1]
	}
	return s
}

// stmtAt is the statement of body that holds pos (the last one starting
// at or before it), or nil when pos is outside the body.
func stmtAt(body []ast.Stmt, pos ast.Pos) ast.Stmt {
	var found ast.Stmt
	for _, s := range body {
		p := s.Pos()
		if p.File != pos.File {
			continue
		}
		if p.Line < pos.Line || (p.Line == pos.Line && p.Col <= pos.Col) {
			found = s
		}
	}
	return found
}
