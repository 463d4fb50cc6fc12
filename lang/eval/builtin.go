package eval

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/grammar"
)

// Builtin is a library function. The standard library registers each one
// with Register, giving its signature, its documentation (shown by `:help`)
// and its implementation.
type Builtin struct {
	Name string
	Sig  *check.Signature
	// Defaults holds the default of each optional parameter that has one
	// (nil where the parameter is simply optional).
	Defaults []Value
	Doc      string
	Fn       func(a *Args) (Value, error)
	// AD marks builtins that accept values depending on model parameters
	// (exp, sum, normal, rbf, ...) and propagate their derivatives. Others
	// are refused such values with a clear error.
	AD bool
}

func (b *Builtin) Type() string                { return "builtin" }
func (b *Builtin) String() string              { return "builtin " + b.Sig.String() }
func (b *Builtin) Signature() *check.Signature { return b.Sig }

// Registry is a set of builtins; it is the check.Universe of a program.
type Registry struct {
	mu sync.RWMutex
	m  map[string]*Builtin
}

// Builtins is the registry the standard library fills and interpreters use
// unless told otherwise.
var Builtins = NewRegistry()

// NewRegistry returns an empty registry. An embedder that wants only some
// of the library's domains makes one and passes it to each domain's
// Register, then to Options.Registry.
func NewRegistry() *Registry { return &Registry{m: map[string]*Builtin{}} }

// Register adds a builtin to the default registry; see Registry.Register.
func Register(spec, doc string, fn func(a *Args) (Value, error)) *Builtin {
	return Builtins.Register(spec, doc, fn)
}

// Register adds a builtin described by spec, a call pattern such as
//
//	landmarks(x, m, seed?, method = "random")
//
// where `p?` is optional without a default, `p = LITERAL` is optional with
// one, `ps...` takes the remaining positional arguments and a final `**`
// accepts any further named arguments. It panics on a malformed spec or a
// name registered twice: both are programming errors in the library.
func (r *Registry) Register(spec, doc string, fn func(a *Args) (Value, error)) *Builtin {
	b, err := parseSpec(spec)
	if err != nil {
		panic("eval: Register(" + spec + "): " + err.Error())
	}
	b.Doc, b.Fn = doc, fn
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.m[b.Name]; dup {
		panic("eval: builtin " + b.Name + " registered twice")
	}
	r.m[b.Name] = b
	return b
}

// Get returns the builtin called name.
func (r *Registry) Get(name string) (*Builtin, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	b, ok := r.m[name]
	return b, ok
}

// Lookup implements check.Universe.
func (r *Registry) Lookup(name string) (*check.Signature, bool) {
	b, ok := r.Get(name)
	if !ok {
		return nil, false
	}
	return b.Sig, true
}

// Names lists the builtins, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.m))
	for n := range r.m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func parseSpec(spec string) (*Builtin, error) {
	open := strings.IndexByte(spec, '(')
	if open <= 0 || !strings.HasSuffix(spec, ")") {
		return nil, fmt.Errorf("want NAME(PARAMS)")
	}
	b := &Builtin{Name: strings.TrimSpace(spec[:open])}
	sig := &check.Signature{Name: b.Name}
	inner := strings.TrimSpace(spec[open+1 : len(spec)-1])
	if inner != "" {
		for _, p := range splitTopLevel(inner) {
			p = strings.TrimSpace(p)
			switch {
			case p == "**":
				sig.AnyNamed = true
			case strings.HasSuffix(p, "..."):
				sig.Variadic = strings.TrimSuffix(p, "...")
			case strings.HasSuffix(p, "?"):
				sig.Params = append(sig.Params, check.Param{Name: strings.TrimSuffix(p, "?"), Optional: true})
				b.Defaults = append(b.Defaults, nil)
			case strings.Contains(p, "="):
				name, lit, _ := strings.Cut(p, "=")
				v, err := literal(strings.TrimSpace(lit))
				if err != nil {
					return nil, fmt.Errorf("default of %s: %v", name, err)
				}
				sig.Params = append(sig.Params, check.Param{Name: strings.TrimSpace(name), Optional: true})
				b.Defaults = append(b.Defaults, v)
			default:
				if sig.Variadic != "" {
					return nil, fmt.Errorf("parameter %s after a variadic one", p)
				}
				sig.Params = append(sig.Params, check.Param{Name: p})
				b.Defaults = append(b.Defaults, nil)
			}
		}
	}
	b.Sig = sig
	return b, nil
}

// splitTopLevel splits at commas outside brackets and quotes.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	inStr := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' && (i == 0 || s[i-1] != '\\'):
			inStr = !inStr
		case inStr:
		case c == '[' || c == '(' || c == '{':
			depth++
		case c == ']' || c == ')' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// literal evaluates a constant default written in KML.
func literal(src string) (Value, error) {
	e, err := grammar.ParseExpr("<spec>", src)
	if err != nil {
		return nil, err
	}
	return constant(e)
}

func constant(e ast.Expr) (Value, error) {
	switch e := e.(type) {
	case *ast.Number:
		return Num(e.Value), nil
	case *ast.String:
		return Str(e.Value), nil
	case *ast.Bool:
		return Bool(e.Value), nil
	case *ast.Vector:
		xs := make([]float64, len(e.Elems))
		for i, el := range e.Elems {
			v, err := constant(el)
			if err != nil {
				return nil, err
			}
			n, ok := v.(Num)
			if !ok {
				return nil, fmt.Errorf("only numbers in a default vector")
			}
			xs[i] = float64(n)
		}
		return &Vec{Data: xs}, nil
	}
	return nil, fmt.Errorf("default %s is not a literal", ast.Format(e))
}

// Usage writes the builtin's call pattern with its defaults, as `:help`
// shows it: `optimize(m, fix?, starts = 1, objective = "map")`.
func (b *Builtin) Usage() string {
	var parts []string
	for i, p := range b.Sig.Params {
		switch {
		case b.Defaults[i] != nil:
			parts = append(parts, p.Name+" = "+Repr(b.Defaults[i]))
		case p.Optional:
			parts = append(parts, p.Name+"?")
		default:
			parts = append(parts, p.Name)
		}
	}
	if b.Sig.Variadic != "" {
		parts = append(parts, b.Sig.Variadic+"...")
	}
	if b.Sig.AnyNamed {
		parts = append(parts, "NAME: value...")
	}
	return b.Name + "(" + strings.Join(parts, ", ") + ")"
}
