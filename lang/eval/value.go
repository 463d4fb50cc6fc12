package eval

import (
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/runtime/ad"
)

// Value is any KML value. Values are immutable once made, so the sampler's
// chains can share them across goroutines.
type Value interface {
	// Type names the kind of value for messages and `:type`: "number",
	// "vector", "matrix", "record", ...
	Type() string
	// String is the value as `print` shows it to a person.
	String() string
}

// HasAttrs is a value with fields read by `v.NAME` (records, posteriors,
// fits).
type HasAttrs interface {
	Value
	Attr(name string) (Value, bool)
	AttrNames() []string
}

// Callable is a value that can be called: a builtin or a fn.
type Callable interface {
	Value
	Signature() *check.Signature
}

// JSONer is a value with its own JSON form for `kml run --json`; values
// without one are written by ToJSON's rules.
type JSONer interface {
	JSON() any
}

var (
	_ HasAttrs = (*Record)(nil)
	_ Callable = (*Builtin)(nil)
	_ Callable = (*Func)(nil)
)

// Num is a real number.
type Num float64

// Bool is true or false.
type Bool bool

// Str is a string.
type Str string

// Vec is a vector of reals.
type Vec struct{ Data []float64 }

// Mat is a matrix of reals; a row is an observation.
//
// sym records that the matrix's producer guarantees it equals its
// transpose bit for bit (NewSymMat): a Gram matrix of one sample, eye, and
// elementwise arithmetic of such matrices and numbers keep it; every other
// way of making a Mat leaves it false, which means only "not known".
// chol skips its symmetry check for such a matrix. Values are not changed
// in place, so the mark stays true for the value's life; a Go caller that
// writes into M of a marked value must not pass it back.
type Mat struct {
	M   *mat.Dense
	sym bool
}

// None is the value of a statement that has none (print's result).
type None struct{}

// NoneValue is the one None.
var NoneValue Value = None{}

func (Num) Type() string  { return "number" }
func (Bool) Type() string { return "bool" }
func (Str) Type() string  { return "string" }
func (*Vec) Type() string { return "vector" }
func (*Mat) Type() string { return "matrix" }
func (None) Type() string { return "none" }

func (n Num) String() string  { return FormatNumber(float64(n)) }
func (b Bool) String() string { return fmt.Sprint(bool(b)) }
func (s Str) String() string  { return string(s) }
func (v *Vec) String() string { return formatVector(v.Data) }
func (m *Mat) String() string { return formatMatrix(m.M) }
func (None) String() string   { return "none" }

// NewMat wraps a gonum matrix.
func NewMat(m *mat.Dense) *Mat { return &Mat{M: m} }

// NewSymMat wraps a square gonum matrix that its caller guarantees to be
// exactly symmetric, m[i, j] == m[j, i] for every i, j (built so, as a
// mirrored Gram matrix is; not merely symmetric up to rounding). It panics
// when m is not square; symmetry is not checked.
func NewSymMat(m *mat.Dense) *Mat {
	if r, c := m.Dims(); r != c {
		panic(fmt.Sprintf("eval: NewSymMat of a %d×%d matrix", r, c))
	}
	return &Mat{M: m, sym: true}
}

// Symmetric reports whether m's producer guaranteed that it is exactly
// symmetric (NewSymMat); false means not known.
func (m *Mat) Symmetric() bool { return m.sym }

// Dims returns the matrix's rows and columns.
func (m *Mat) Dims() (int, int) { return m.M.Dims() }

// Record is an ordered set of named fields.
type Record struct {
	keys []string
	vals map[string]Value
	// of is the typed Go value the record shows, when the builtin that made
	// it keeps one (SetOf): a builtin that takes the record back reads it
	// instead of parsing the fields again.
	of any
}

// SetOf keeps v, the typed value the record shows (optimize's fit of a
// latent GP model, say), beside its fields. Only the code that makes a
// record calls it, before the record is shared. The fields stay what the
// user sees and prints; v is never shown.
func (r *Record) SetOf(v any) *Record {
	r.of = v
	return r
}

// Of is the typed value SetOf kept, or nil: a record the user built, or
// one a builtin made without one.
func (r *Record) Of() any { return r.of }

// NewRecord makes an empty record.
func NewRecord() *Record { return &Record{vals: map[string]Value{}} }

// Set adds or replaces a field, keeping the first position of a name. Only
// the code that makes a record calls Set, before the record is shared.
func (r *Record) Set(name string, v Value) *Record {
	if _, ok := r.vals[name]; !ok {
		r.keys = append(r.keys, name)
	}
	r.vals[name] = v
	return r
}

func (r *Record) Type() string { return "record" }

// Attr returns field name.
func (r *Record) Attr(name string) (Value, bool) {
	v, ok := r.vals[name]
	return v, ok
}

// AttrNames lists the fields in order.
func (r *Record) AttrNames() []string { return r.keys }

func (r *Record) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range r.keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteString(": ")
		b.WriteString(Repr(r.vals[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// Repr is v as it appears inside a record or list: strings quoted.
func Repr(v Value) string {
	if s, ok := v.(Str); ok {
		return fmt.Sprintf("%q", string(s))
	}
	return v.String()
}

// Func is a user function made by `fn`.
type Func struct {
	decl *ast.Fn
	env  *Env
	sig  *check.Signature
}

func (f *Func) Type() string                { return "function" }
func (f *Func) String() string              { return "fn " + f.sig.String() }
func (f *Func) Signature() *check.Signature { return f.sig }

// ADNum is a real number that depends on model parameters: a node on the
// tape of the log density being evaluated.
type ADNum struct {
	T *ad.Tape
	V ad.Var
}

// ADVec is a vector whose elements depend on model parameters.
type ADVec struct {
	T  *ad.Tape
	Vs []ad.Var
}

// ADMat is a matrix whose elements depend on model parameters, stored row
// by row: element (i, j) is Vs[i*Cols+j].
type ADMat struct {
	T          *ad.Tape
	Rows, Cols int
	Vs         []ad.Var
}

func (*ADNum) Type() string { return "number" }
func (*ADVec) Type() string { return "vector" }
func (*ADMat) Type() string { return "matrix" }

// String peeks (ADNum.Peek): printing a value, or a label built from it,
// decides nothing, so it does not stop a model from replaying.
func (a *ADNum) String() string { return FormatNumber(a.Peek()) }
func (a *ADVec) String() string { return formatVector(a.Peeks()) }

func (a *ADMat) String() string { return formatMatrix(a.Dense()) }

// Dims returns the matrix's rows and columns.
func (a *ADMat) Dims() (int, int) { return a.Rows, a.Cols }

// Dense returns the matrix's current values.
func (a *ADMat) Dense() *mat.Dense {
	if a.Rows == 0 || a.Cols == 0 {
		return &mat.Dense{}
	}
	xs := make([]float64, len(a.Vs))
	for i, v := range a.Vs {
		xs[i] = a.T.Value(v)
	}
	return mat.NewDense(a.Rows, a.Cols, xs)
}

// Value returns the number's current value.
func (a *ADNum) Value() float64 { return a.T.Value(a.V) }

// Values returns the vector's current values.
func (a *ADVec) Values() []float64 {
	xs := make([]float64, len(a.Vs))
	for i, v := range a.Vs {
		xs[i] = a.T.Value(v)
	}
	return xs
}

// Peek is the number's value without marking the recording as having read
// it (ad.Tape.Peek): for a value that is only passed on to a node that
// recomputes it from its parents at replay (a kernel's hyperparameter read
// by eval.FuncNode, a VecFunc or a Guard), never for a decision a replay
// would not make again.
func (a *ADNum) Peek() float64 { return a.T.Peek(a.V) }

// Peeks is Values without marking the recording (see ADNum.Peek).
func (a *ADVec) Peeks() []float64 {
	xs := make([]float64, len(a.Vs))
	for i, v := range a.Vs {
		xs[i] = a.T.Peek(v)
	}
	return xs
}

// PeekFloat is ToFloat for a number, on the tape or not, without marking
// the recording (see ADNum.Peek).
func PeekFloat(v Value) (float64, bool) {
	if a, ok := v.(*ADNum); ok {
		return a.Peek(), true
	}
	return ToFloat(v)
}

// IsAD reports whether v depends on model parameters, at any depth of a
// record.
func IsAD(v Value) bool {
	switch v := v.(type) {
	case *ADNum, *ADVec, *ADMat:
		return true
	case *Record:
		for _, k := range v.keys {
			if IsAD(v.vals[k]) {
				return true
			}
		}
	case ADHolder:
		return v.HasAD()
	}
	return false
}

// ADHolder is a value (a distribution, a kernel) whose parameters may depend
// on model parameters.
type ADHolder interface {
	HasAD() bool
}
