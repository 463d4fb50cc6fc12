package check

import (
	"sort"

	"github.com/kml-lang/kml/lang/ast"
)

// Kind says what a name is bound to.
type Kind int

const (
	Builtin    Kind = iota // a library function
	Let                    // `let NAME = ...`
	Func                   // `fn NAME(...) = ...`
	ModelName              // `model NAME { ... }`
	FuncParam              // a parameter of a fn
	ModelParam             // a model parameter, `NAME ~ PRIOR`
	Derived                // a derived quantity in a model, `NAME = EXPR`
	Latent                 // a latent function in a model, `f ~ gp(...)`
	DataArg                // a data argument of a model, `model m(x, y) { ... }`
)

func (k Kind) String() string {
	return [...]string{"builtin", "value", "function", "model", "function parameter",
		"model parameter", "derived quantity", "latent function", "data argument"}[k]
}

// Binding is one name in a scope.
type Binding struct {
	Name string
	Kind Kind
	Pos  ast.Pos
	// Sig is the call signature of builtins and fns, nil otherwise.
	Sig *Signature
}

// Scope is a set of names with a parent. The outermost scope holds the
// builtins; a file's top level, a fn's parameters and a model's body each get
// a scope of their own.
type Scope struct {
	parent *Scope
	names  map[string]*Binding
	// model is set on a model body's scope.
	model *modelInfo
}

// NewScope makes an empty scope inside parent (nil for the outermost).
func NewScope(parent *Scope) *Scope {
	return &Scope{parent: parent, names: map[string]*Binding{}}
}

// UniverseScope makes the outermost scope from a Universe of builtins.
func UniverseScope(u Universe) *Scope {
	s := NewScope(nil)
	if u != nil {
		for _, n := range u.Names() {
			sig, _ := u.Lookup(n)
			s.names[n] = &Binding{Name: n, Kind: Builtin, Sig: sig}
		}
	}
	return s
}

// Parent is the enclosing scope, nil for the outermost.
func (s *Scope) Parent() *Scope { return s.parent }

// Lookup finds name in s or its parents.
func (s *Scope) Lookup(name string) *Binding {
	for ; s != nil; s = s.parent {
		if b, ok := s.names[name]; ok {
			return b
		}
	}
	return nil
}

// Local finds name in s alone.
func (s *Scope) Local(name string) *Binding { return s.names[name] }

// Define binds b in s, replacing any binding of the same name in s.
func (s *Scope) Define(b *Binding) { s.names[b.Name] = b }

// Bindings lists the names bound in s alone, sorted.
func (s *Scope) Bindings() []*Binding {
	out := make([]*Binding, 0, len(s.names))
	for _, b := range s.names {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Visible lists every name visible from s: the innermost scope's names first,
// each scope's sorted (suggestions prefer the user's own names).
func (s *Scope) Visible() []string {
	seen := map[string]bool{}
	var out []string
	for ; s != nil; s = s.parent {
		start := len(out)
		for n := range s.names {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		sort.Strings(out[start:])
	}
	return out
}
