package eval

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/runtime/interrupt"
)

// stmts runs statements in env and returns the value of the last one when it
// is an expression (and last is true).
func (th *Thread) stmts(list []ast.Stmt, env *Env, last bool) (Value, error) {
	var result Value = NoneValue
	for i, s := range list {
		if err := th.cancelled(s.Pos()); err != nil {
			return nil, err
		}
		v, err := th.guardedStmt(s, env)
		if err != nil {
			return nil, err
		}
		if last && i == len(list)-1 {
			result = v
		}
	}
	return result, nil
}

// guardedStmt is stmt turning a Go panic outside any builtin (builtins
// have their own guard, with a sharper position) into an internal error at
// the statement, so neither a script nor a Go program embedding KML sees a
// stack trace.
func (th *Thread) guardedStmt(s ast.Stmt, env *Env) (v Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			v = nil
			if interrupt.Is(r) {
				cause := th.ctx.Err()
				if cause == nil {
					cause = context.Canceled
				}
				err = Interrupted(s.Pos(), cause)
				return
			}
			err = &ast.Error{Pos: s.Pos(), Msg: fmt.Sprintf("internal error: %v", r),
				Notes: []string{"this is a bug in KML; please report it with the script that caused it",
					firstFrames(debug.Stack())}}
		}
	}()
	return th.stmt(s, env)
}

func (th *Thread) stmt(s ast.Stmt, env *Env) (Value, error) {
	switch s := s.(type) {
	case *ast.Let:
		v, err := th.expr(s.Value, env)
		if err != nil {
			return nil, err
		}
		env.Define(s.Name.Name, v)
		th.in.ledger.bind(env, s.Name.Name, v)
		return NoneValue, nil
	case *ast.Fn:
		sig := &check.Signature{Name: s.Name.Name}
		for _, p := range s.Params {
			sig.Params = append(sig.Params, check.Param{Name: p.Name})
		}
		env.Define(s.Name.Name, &Func{decl: s, env: env, sig: sig})
		return NoneValue, nil
	case *ast.Model:
		if s.Params != nil {
			env.Define(s.Name.Name, newModelFamily(s, env))
			return NoneValue, nil
		}
		m, err := th.makeModel(s, env)
		if err != nil {
			return nil, err
		}
		env.Define(s.Name.Name, m)
		return NoneValue, nil
	case *ast.Import:
		return NoneValue, th.importFile(s, env)
	case *ast.ExprStmt:
		return th.expr(s.X, env)
	}
	return nil, ast.Errorf(s.Pos(), "this statement cannot run here")
}

// importFile runs an imported file once per interpreter and binds its
// top-level names in env.
func (th *Thread) importFile(s *ast.Import, env *Env) error {
	in := th.in
	key, f, err := importer{in}.Import(s.Path.At, s.Path.Value)
	if err != nil {
		return err
	}
	ienv, done := in.imported[key]
	if !done {
		for _, k := range in.importing {
			if k == key {
				return ast.Errorf(s.Path.At, "import cycle through %s", s.Path.Value)
			}
		}
		in.importing = append(in.importing, key)
		in.baseDirs = append(in.baseDirs, filepath.Dir(key))
		ienv = NewEnv(nil)
		_, err := th.stmts(f.Stmts, ienv, false)
		in.baseDirs = in.baseDirs[:len(in.baseDirs)-1]
		in.importing = in.importing[:len(in.importing)-1]
		if err != nil {
			return err
		}
		in.imported[key] = ienv
	}
	for name, v := range ienv.vars {
		env.Define(name, v)
	}
	return nil
}

func (th *Thread) lookup(id *ast.Ident, env *Env) (Value, error) {
	if v, ok := env.Lookup(id.Name); ok {
		return v, nil
	}
	if b, ok := th.in.reg.Get(id.Name); ok {
		return b, nil
	}
	return nil, ast.Errorf(id.At, "undefined: %s", id.Name)
}

// expr evaluates an expression.
func (th *Thread) expr(e ast.Expr, env *Env) (Value, error) {
	switch e := e.(type) {
	case *ast.Number:
		return Num(e.Value), nil
	case *ast.String:
		return Str(e.Value), nil
	case *ast.Bool:
		return Bool(e.Value), nil
	case *ast.Ident:
		return th.lookup(e, env)
	case *ast.Vector:
		return th.vector(e, env)
	case *ast.Record:
		r := NewRecord()
		var held []flight
		defer func() {
			for _, f := range held {
				th.land(f)
			}
		}()
		for _, f := range e.Fields {
			v, err := th.expr(f.Value, env)
			if err != nil {
				return nil, err
			}
			r.Set(f.Name.Name, v)
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		return r, nil
	case *ast.Selector:
		x, err := th.expr(e.X, env)
		if err != nil {
			return nil, err
		}
		return selectField(x, e.Name)
	case *ast.Index:
		return th.index(e, env)
	case *ast.Call:
		return th.call(e, env)
	case *ast.Binary:
		return th.binary(e, env)
	case *ast.Unary:
		x, err := th.expr(e.X, env)
		if err != nil {
			return nil, err
		}
		return unary(e.OpPos, e.Op, x)
	case *ast.If:
		c, err := th.expr(e.Cond, env)
		if err != nil {
			return nil, err
		}
		b, ok := c.(Bool)
		if !ok {
			return nil, ast.Errorf(e.Cond.Pos(), "the condition of `if` must be true or false, got %s", Describe(c))
		}
		if b {
			return th.expr(e.Then, env)
		}
		return th.expr(e.Else, env)
	case *ast.Slice:
		return nil, ast.Errorf(e.At, "a slice `a:b` is only allowed inside [ ]")
	}
	return nil, ast.Errorf(e.Pos(), "cannot evaluate this expression")
}

func selectField(x Value, name *ast.Ident) (Value, error) {
	h, ok := x.(HasAttrs)
	if !ok {
		return nil, ast.Errorf(name.At, "%s has no fields (looking for .%s)", Describe(x), name.Name)
	}
	if v, ok := h.Attr(name.Name); ok {
		return v, nil
	}
	names := h.AttrNames()
	msg := fmt.Sprintf("%s has no field %q", x.Type(), name.Name)
	if len(names) > 0 {
		msg += "; it has " + strings.Join(names, ", ")
	}
	return nil, ast.Errorf(name.At, "%s", msg)
}

func (th *Thread) binary(e *ast.Binary, env *Env) (Value, error) {
	x, err := th.expr(e.X, env)
	if err != nil {
		return nil, err
	}
	// && and || look at the right side only when they must.
	if e.Op == "&&" || e.Op == "||" {
		b, ok := x.(Bool)
		if !ok {
			return nil, ast.Errorf(e.OpPos, "%s needs true or false on its left, got %s", e.Op, Describe(x))
		}
		if (e.Op == "&&" && !bool(b)) || (e.Op == "||" && bool(b)) {
			return b, nil
		}
		y, err := th.expr(e.Y, env)
		if err != nil {
			return nil, err
		}
		if _, ok := y.(Bool); !ok {
			return nil, ast.Errorf(e.OpPos, "%s needs true or false on its right, got %s", e.Op, Describe(y))
		}
		return y, nil
	}
	// x stays in flight while y is computed (a leaf allocates nothing).
	if !leaf(e.Y) {
		f := th.hold(x)
		defer th.land(f)
	}
	y, err := th.expr(e.Y, env)
	if err != nil {
		return nil, err
	}
	if e.Op == "@" {
		if err := th.checkMatmul(e.OpPos, x, y); err != nil {
			return nil, err
		}
	} else if err := th.checkElementwise(e.OpPos, e.Op, x, y); err != nil {
		return nil, err
	}
	return Binary(e.OpPos, e.Op, x, y)
}

// leaf reports whether e is evaluated without allocating: a name or a
// literal number, string or bool.
func leaf(e ast.Expr) bool {
	switch e.(type) {
	case *ast.Ident, *ast.Number, *ast.String, *ast.Bool:
		return true
	}
	return false
}

func (th *Thread) call(e *ast.Call, env *Env) (Value, error) {
	fv, err := th.expr(e.Fn, env)
	if err != nil {
		return nil, err
	}
	callable, ok := fv.(Callable)
	if m, isModel := fv.(*Model); isModel && !ok {
		if m.Family != nil {
			return nil, ast.Errorf(e.Lparen, "model %s has its data already; call %s itself with other data", m.Name, m.Family.sig)
		}
		return nil, ast.Errorf(e.Lparen, "model %s takes no data: it binds its data where it is declared; declare it `model %s(x, ...) { ... }` to call it with data", m.Name, m.Name)
	}
	if !ok {
		return nil, ast.Errorf(e.Lparen, "%s is not a function", Describe(fv))
	}
	sig := callable.Signature()
	slots, rest, extra, err := bindCall(e, sig)
	if err != nil {
		return nil, err
	}
	if err := th.cancelled(e.Pos()); err != nil {
		return nil, err
	}
	if err := th.step(e.Pos()); err != nil {
		return nil, err
	}
	th.depth++
	defer func() { th.depth-- }()
	if th.depth > maxDepth {
		return nil, ast.Errorf(e.Pos(), "calls nested deeper than %d: is a recursive fn missing its base case?", maxDepth)
	}
	// The arguments are in flight until the call returns.
	var held []flight
	defer func() {
		for _, f := range held {
			th.land(f)
		}
	}()
	switch f := callable.(type) {
	case *Func:
		fenv := NewEnv(f.env)
		for i, p := range f.decl.Params {
			v, err := th.expr(slots[i], env)
			if err != nil {
				return nil, err
			}
			fenv.Define(p.Name, v)
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		v, err := th.expr(f.decl.Body, fenv)
		if err != nil {
			return nil, withFrame(err, ast.Frame{Name: f.sig.Name, Pos: e.Pos()})
		}
		return v, nil
	case *Builtin:
		a := &Args{Th: th, Pos: e.Pos(), b: f,
			vals: make([]Value, len(sig.Params)), given: make([]bool, len(sig.Params)), poss: make([]ast.Pos, len(sig.Params))}
		for i, x := range slots {
			if x == nil {
				a.vals[i] = f.Defaults[i]
				continue
			}
			v, err := th.expr(x, env)
			if err != nil {
				return nil, err
			}
			a.vals[i], a.given[i], a.poss[i] = v, true, x.Pos()
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		for _, x := range rest {
			v, err := th.expr(x, env)
			if err != nil {
				return nil, err
			}
			a.Rest = append(a.Rest, v)
			a.RestPos = append(a.RestPos, x.Pos())
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		for _, na := range extra {
			v, err := th.expr(na.Value, env)
			if err != nil {
				return nil, err
			}
			a.Extra = append(a.Extra, NamedValue{Name: na.Name.Name, Value: v, Pos: na.Name.At})
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		return th.callBuiltin(f, a)
	case *ModelFamily:
		vals := make([]Value, len(slots))
		poss := make([]ast.Pos, len(slots))
		for i, x := range slots {
			v, err := th.expr(x, env)
			if err != nil {
				return nil, err
			}
			vals[i], poss[i] = v, x.Pos()
			if f := th.hold(v); f != nil {
				held = append(held, f)
			}
		}
		return th.instantiate(f, vals, poss)
	}
	return nil, ast.Errorf(e.Lparen, "%s cannot be called", Describe(fv))
}

// runtimeBinds counts the calls whose arguments were matched at run time
// (tests use it to see that calls the checker bound are not bound again).
var runtimeBinds atomic.Int64

// RuntimeBinds is how many calls, over the process, have had their
// arguments matched at run time rather than by the checker (tests use it to
// check that a model's density loop binds nothing).
func RuntimeBinds() int64 { return runtimeBinds.Load() }

// bindCall matches a call's arguments to sig. It uses the checker's
// binding when the checker knew a callee with a signature like sig, and
// binds at run time otherwise: a call through a variable, a parameter, or a
// name redefined since the call was checked.
func bindCall(e *ast.Call, sig *check.Signature) (slots, rest []ast.Expr, extra []*ast.NamedArg, err error) {
	if b, ok := e.Binding.(*check.CallBinding); ok && b.Sig.Same(sig) {
		return b.Slots, b.Rest, b.Extra, nil
	}
	runtimeBinds.Add(1)
	var errs ast.ErrorList
	slots, rest, extra = sig.Bind(e, &errs)
	if len(errs) > 0 {
		return nil, nil, nil, errs[0]
	}
	return slots, rest, extra, nil
}

// callBuiltin runs a builtin, refusing values that depend on model
// parameters unless it is differentiable, placing its errors at the call,
// and turning a Go panic into an internal error at the call's position.
func (th *Thread) callBuiltin(b *Builtin, a *Args) (v Value, err error) {
	if !b.AD {
		for i, x := range a.vals {
			if x != nil && IsAD(x) {
				return nil, &ast.Error{Pos: a.poss[i], Msg: fmt.Sprintf(
					"%s cannot take a value that depends on model parameters (its %s argument)", b.Name, b.Sig.Params[i].Name)}
			}
		}
		for i, x := range a.Rest {
			if IsAD(x) {
				return nil, &ast.Error{Pos: a.RestPos[i], Msg: fmt.Sprintf(
					"%s cannot take a value that depends on model parameters", b.Name)}
			}
		}
	}
	defer func() {
		if r := recover(); r != nil {
			v = nil
			if interrupt.Is(r) {
				// A dense kernel stopped by the interrupt (see
				// runtime/interrupt): the builtin was interrupted,
				// with the cause the run's context gives.
				err = th.interrupted(a, context.Canceled)
				return
			}
			err = &ast.Error{Pos: a.Pos, Msg: fmt.Sprintf("internal error in %s: %v", b.Name, r),
				Notes: []string{"this is a bug in KML; please report it with the script that caused it",
					firstFrames(debug.Stack())}}
		}
	}()
	v, err = b.Fn(a)
	if err == nil {
		err = a.checkResult(v)
	}
	if err != nil {
		var ae *ast.Error
		var list ast.ErrorList
		switch {
		case th.stopped(err):
			err = th.interrupted(a, err)
		case errors.As(err, &ae):
			err = placed(err, a.Pos)
		case errors.As(err, &list):
		default:
			err = &ast.Error{Pos: a.Pos, Msg: b.Name + ": " + err.Error(), Cause: err}
		}
		return nil, err
	}
	if v == nil {
		v = NoneValue
	}
	return v, nil
}

// firstFrames keeps the panic site from a stack trace, for a bug report.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	for i, l := range lines {
		if strings.Contains(l, "panic(") && i+3 < len(lines) {
			return "at " + strings.TrimSpace(lines[i+3])
		}
	}
	return "at an unknown place"
}

// CallValue calls a KML function value with positional arguments, for
// builtins that take functions.
func (th *Thread) CallValue(pos ast.Pos, fv Value, args ...Value) (Value, error) {
	if err := th.step(pos); err != nil {
		return nil, err
	}
	switch f := fv.(type) {
	case *Func:
		if len(args) != len(f.decl.Params) {
			return nil, ast.Errorf(pos, "%s takes %d arguments, got %d", f.sig, len(f.decl.Params), len(args))
		}
		th.depth++
		defer func() { th.depth-- }()
		if th.depth > maxDepth {
			return nil, ast.Errorf(pos, "calls nested deeper than %d", maxDepth)
		}
		if err := th.cancelled(pos); err != nil {
			return nil, err
		}
		fenv := NewEnv(f.env)
		for i, p := range f.decl.Params {
			fenv.Define(p.Name, args[i])
		}
		return th.expr(f.decl.Body, fenv)
	case *Builtin:
		if len(args) > len(f.Sig.Params) && f.Sig.Variadic == "" {
			return nil, ast.Errorf(pos, "%s takes at most %d arguments", f.Sig, len(f.Sig.Params))
		}
		a := &Args{Th: th, Pos: pos, b: f, vals: make([]Value, len(f.Sig.Params)),
			given: make([]bool, len(f.Sig.Params)), poss: make([]ast.Pos, len(f.Sig.Params))}
		for i := range f.Sig.Params {
			if i < len(args) {
				a.vals[i], a.given[i], a.poss[i] = args[i], true, pos
			} else {
				a.vals[i] = f.Defaults[i]
				if a.vals[i] == nil && !f.Sig.Params[i].Optional {
					return nil, ast.Errorf(pos, "missing argument %q in call to %s", f.Sig.Params[i].Name, f.Sig)
				}
			}
		}
		if len(args) > len(f.Sig.Params) {
			a.Rest = args[len(f.Sig.Params):]
			for range a.Rest {
				a.RestPos = append(a.RestPos, pos)
			}
		}
		return th.callBuiltin(f, a)
	case *ModelFamily:
		if len(args) != len(f.decl.Params) {
			return nil, ast.Errorf(pos, "%s takes %d data arguments, got %d", f.sig, len(f.decl.Params), len(args))
		}
		poss := make([]ast.Pos, len(args))
		for i := range poss {
			poss[i] = pos
		}
		return th.instantiate(f, args, poss)
	}
	return nil, ast.Errorf(pos, "%s is not a function", Describe(fv))
}
