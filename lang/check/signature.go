package check

import (
	"strings"

	"github.com/kml-lang/kml/lang/ast"
)

// Param is one parameter of a callable.
type Param struct {
	Name string
	// Optional parameters have a default and may be left out.
	Optional bool
}

// Signature is what the checker knows of a callable: its parameters in
// positional order, each of which may also be passed by name.
type Signature struct {
	Name   string
	Params []Param
	// Variadic names a positional tail that takes any number of values
	// (`print(v, ...)`); "" if there is none. It cannot be passed by name.
	Variadic string
	// AnyNamed accepts named arguments beyond Params (`profile(m, ell: grid)`).
	AnyNamed bool
}

// String renders the signature as a user reads it: "gram(k, x, y?)".
func (s *Signature) String() string {
	var b strings.Builder
	b.WriteString(s.Name)
	b.WriteByte('(')
	for i, p := range s.Params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
		if p.Optional {
			b.WriteByte('?')
		}
	}
	if s.Variadic != "" {
		if len(s.Params) > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.Variadic + "...")
	}
	if s.AnyNamed {
		if len(s.Params) > 0 || s.Variadic != "" {
			b.WriteString(", ")
		}
		b.WriteString("NAME: value...")
	}
	b.WriteByte(')')
	return b.String()
}

// Bind matches a call's arguments against the signature: slots[i] is the
// argument expression for Params[i] (nil when left out), rest holds the
// variadic tail and extra holds the named arguments that only AnyNamed
// accepts. Every mistake is reported into errs at the argument's position.
func (s *Signature) Bind(call *ast.Call, errs *ast.ErrorList) (slots []ast.Expr, rest []ast.Expr, extra []*ast.NamedArg) {
	slots = make([]ast.Expr, len(s.Params))
	for i, a := range call.Args {
		switch {
		case i < len(s.Params):
			slots[i] = a
		case s.Variadic != "":
			rest = append(rest, a)
		default:
			errs.Add(a.Pos(), "too many arguments to %s: it takes %d positional argument%s", s, len(s.Params), plural(len(s.Params)))
			return slots, rest, extra
		}
	}
	seen := map[string]bool{}
	for _, a := range call.Named {
		name := a.Name.Name
		if seen[name] {
			errs.Add(a.Name.At, "argument %q is given twice", name)
			continue
		}
		seen[name] = true
		idx := -1
		for i, p := range s.Params {
			if p.Name == name {
				idx = i
				break
			}
		}
		switch {
		case idx >= 0 && slots[idx] != nil:
			errs.Add(a.Name.At, "argument %q is given twice (once by position)", name)
		case idx >= 0:
			slots[idx] = a.Value
		case s.AnyNamed:
			extra = append(extra, a)
		default:
			msg := "%s has no argument %q"
			if m := Closest(name, s.paramNames()); m != "" {
				errs.Add(a.Name.At, msg+"; did you mean %q?", s.Name, name, m)
			} else {
				errs.Add(a.Name.At, msg+"; it takes %s", s.Name, name, s)
			}
		}
	}
	for i, p := range s.Params {
		if slots[i] == nil && !p.Optional {
			errs.Add(call.Lparen, "missing argument %q in call to %s", p.Name, s)
		}
	}
	return slots, rest, extra
}

// CallBinding is a call's arguments matched to a signature, as Bind returns
// them. The checker stores one on each ast.Call whose callee it knows.
type CallBinding struct {
	// Sig is the signature the arguments were matched against.
	Sig   *Signature
	Slots []ast.Expr
	Rest  []ast.Expr
	Extra []*ast.NamedArg
}

// Same reports whether s and t match arguments alike: the same parameters
// (names and optionality), variadic tail and named-argument policy. A
// binding made against s serves a call to t exactly when Same holds.
func (s *Signature) Same(t *Signature) bool {
	if s == t {
		return true
	}
	if s == nil || t == nil || s.Variadic != t.Variadic || s.AnyNamed != t.AnyNamed || len(s.Params) != len(t.Params) {
		return false
	}
	for i, p := range s.Params {
		if p != t.Params[i] {
			return false
		}
	}
	return true
}

func (s *Signature) paramNames() []string {
	out := make([]string, len(s.Params))
	for i, p := range s.Params {
		out[i] = p.Name
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
