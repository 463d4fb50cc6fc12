package eval

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
)

// Model is the value of `model NAME { ... }`: its statements, the scope they
// were declared in, and the parameters they declare. Fitting compiles it into
// a log density (lang/model).
type Model struct {
	Name   string
	decl   *ast.Model
	env    *Env
	Params []ModelParam
	// Observations counts the `DATA ~ DIST` statements.
	Observations int
	// Latents names the latent functions, `f ~ gp(X, KERNEL)`.
	Latents []string
	// Family is the model family this model is an instance of (made by
	// calling `model NAME(X, Y) { ... }` with its data), nil for a model
	// declared without data arguments. Shapes then describes the data's
	// shapes and the vector parameters' sizes: instances with equal Shapes
	// compile alike (lang/model's compile cache).
	Family *ModelFamily
	Shapes string
	args   []dataArg
}

// ModelParam is one declared parameter: a scalar (Size 0) or a vector.
type ModelParam struct {
	Name string
	Size int // 0 for a scalar, K for `NAME[K]`
	Pos  ast.Pos
	// Stmt is the `NAME ~ DIST` statement that declares it.
	Stmt *ast.Tilde
}

// Dim is the number of reals the parameter holds.
func (p ModelParam) Dim() int { return max(p.Size, 1) }

// Decl is the model's declaration.
func (m *Model) Decl() *ast.Model { return m.decl }

// Env is the scope the model was declared in.
func (m *Model) Env() *Env { return m.env }

// ParamNames lists the parameters' names in declaration order.
func (m *Model) ParamNames() []string {
	out := make([]string, len(m.Params))
	for i, p := range m.Params {
		out[i] = p.Name
	}
	return out
}

// Names lists the free reals' names for a parameter: `ell`, or `w.1`,
// `w.2`, ... for a vector parameter.
func (p ModelParam) Names() []string {
	if p.Size == 0 {
		return []string{p.Name}
	}
	out := make([]string, p.Size)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d", p.Name, i+1)
	}
	return out
}

func (m *Model) Type() string { return "model" }

func (m *Model) String() string {
	var names []string
	for _, p := range m.Params {
		if p.Size > 0 {
			names = append(names, fmt.Sprintf("%s[%d]", p.Name, p.Size))
		} else {
			names = append(names, p.Name)
		}
	}
	if m.Family != nil {
		return fmt.Sprintf("model %s for data %s (parameters: %s; observations: %d)", m.Name, m.Shapes, strings.Join(names, ", "), m.Observations)
	}
	return fmt.Sprintf("model %s (parameters: %s; observations: %d)", m.Name, strings.Join(names, ", "), m.Observations)
}

// makeModel builds a model value: it fixes the size of every vector
// parameter now, from data bound outside the model.
// MaxParamSize bounds NAME[K]: a sampler keeps several vectors and, with a
// dense metric, a K×K matrix per chain, so a larger K is surely a slip.
const MaxParamSize = 100_000

func (th *Thread) makeModel(decl *ast.Model, env *Env) (*Model, error) {
	m := &Model{Name: decl.Name.Name, decl: decl, env: env}
	for _, s := range decl.Body {
		t, ok := s.(*ast.Tilde)
		if !ok {
			continue
		}
		switch t.Kind {
		case ast.Param:
			m.Params = append(m.Params, ModelParam{Name: t.Name.Name, Pos: t.Name.At, Stmt: t})
		case ast.VecParam:
			v, err := th.expr(t.Size, env)
			if err != nil {
				return nil, err
			}
			k, ok := v.(Num)
			if !ok || float64(k) != float64(int(k)) || k < 1 {
				got := Describe(v)
				if ok {
					got = FormatNumber(float64(k)) // the value, not just its type
				}
				return nil, ast.Errorf(t.Size.Pos(), "the size of %s[...] must be a whole number ≥ 1, got %s", t.Name.Name, got)
			}
			if k > MaxParamSize {
				return nil, ast.Errorf(t.Size.Pos(), "the size of %s[...] is %s; a vector parameter may have at most %d elements", t.Name.Name, FormatNumber(float64(k)), MaxParamSize)
			}
			m.Params = append(m.Params, ModelParam{Name: t.Name.Name, Size: int(k), Pos: t.Name.At, Stmt: t})
		case ast.Observe:
			m.Observations++
		case ast.Latent:
			m.Latents = append(m.Latents, t.Name.Name)
		}
	}
	return m, nil
}
