package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/rng"
)

// Args holds a builtin call's arguments matched to its signature, with
// helpers that convert them and report a bad one at its own position.
type Args struct {
	Th *Thread
	// Pos is the position of the call.
	Pos ast.Pos
	b   *Builtin

	vals  []Value // one per Sig.Params; defaults filled in; nil when absent
	given []bool
	poss  []ast.Pos
	// Rest is the variadic tail.
	Rest    []Value
	RestPos []ast.Pos
	// Extra holds the named arguments a `**` signature accepts.
	Extra []NamedValue
}

// NamedValue is a named argument.
type NamedValue struct {
	Name  string
	Value Value
	Pos   ast.Pos
}

func (a *Args) index(name string) int {
	for i, p := range a.b.Sig.Params {
		if p.Name == name {
			return i
		}
	}
	panic(fmt.Sprintf("eval: builtin %s has no parameter %q", a.b.Name, name))
}

// Given reports whether the caller passed the argument.
func (a *Args) Given(name string) bool { return a.given[a.index(name)] }

// Value returns the argument (or its default), nil when absent.
func (a *Args) Value(name string) Value { return a.vals[a.index(name)] }

// AnyAD reports whether an argument depends on model parameters: a builtin
// with a differentiable path chooses it this way.
func (a *Args) AnyAD() bool {
	for _, v := range a.vals {
		if v != nil && IsAD(v) {
			return true
		}
	}
	for _, v := range a.Rest {
		if IsAD(v) {
			return true
		}
	}
	return false
}

// PosOf is the position of the argument, or of the call when it was not
// given.
func (a *Args) PosOf(name string) ast.Pos {
	i := a.index(name)
	if a.given[i] {
		return a.poss[i]
	}
	return a.Pos
}

// Errorf makes an error positioned at argument name, prefixed with the
// builtin's name.
func (a *Args) Errorf(name, format string, args ...any) error {
	return &ast.Error{Pos: a.PosOf(name), Msg: a.prefixed(fmt.Sprintf(format, args...))}
}

// prefixed puts the builtin's name before msg unless msg already starts
// with it (errors from the runtime packages often name the kernel or the
// distribution, which is the builtin).
func (a *Args) prefixed(msg string) string {
	if strings.HasPrefix(msg, a.b.Name+":") {
		return msg
	}
	return a.b.Name + ": " + msg
}

// Fail makes an error positioned at the call, prefixed with the builtin's
// name.
func (a *Args) Fail(format string, args ...any) error {
	return &ast.Error{Pos: a.Pos, Msg: a.prefixed(fmt.Sprintf(format, args...))}
}

// Unpacker is a Go type that converts a KML argument to itself, so a kind
// of argument ("a kernel such as rbf(1)", "a posterior from sample") says
// what it accepts, and how it refuses, in one place. UnpackArg gets the
// argument's name for its message; Unpack places the error at the argument
// and prefixes the builtin's name.
type Unpacker interface {
	UnpackArg(name string, v Value) error
}

// Unpack converts arguments into Go variables, in pairs of a parameter name
// and a pointer, as starlark's UnpackArgs:
//
//	a.Unpack("x", &x, "m", &m, "title?", &title)
//
// A name ending in "?" may be absent (no value and no default), leaving its
// variable as it was; any other absent argument is an error. The targets are
// *float64 (a number), *int (a whole number), *Length, *PositiveInt,
// *string, *bool, *[]float64 (a number, a vector, or a one-row or
// one-column matrix), **mat.Dense (data, a row per observation), **Record,
// *Value (as given) and any Unpacker. The first bad argument is reported at
// its own position. Names must be parameters of the builtin's signature; a
// name that is not is a bug in the library (TestUnpackNames in stdlib looks
// for them), and panics.
func (a *Args) Unpack(pairs ...any) error {
	if len(pairs)%2 != 0 {
		panic("eval: Unpack(" + a.b.Name + ") needs name, pointer pairs")
	}
	for i := 0; i < len(pairs); i += 2 {
		name, ok := pairs[i].(string)
		if !ok {
			panic(fmt.Sprintf("eval: Unpack(%s): argument %d is not a name", a.b.Name, i))
		}
		name, optional := strings.CutSuffix(name, "?")
		v := a.Value(name)
		if v == nil {
			if optional {
				continue
			}
			return a.Errorf(name, "missing argument %q", name)
		}
		if err := a.unpack(name, v, pairs[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// Length is a whole number from 0 to MaxLength: a vector's length.
type Length int

// PositiveInt is a whole number ≥ 1.
type PositiveInt int

func (a *Args) unpack(name string, v Value, target any) error {
	bad := func(what string) error {
		return a.Errorf(name, "%s must be %s, got %s", name, what, Describe(v))
	}
	switch p := target.(type) {
	case *Value:
		*p = v
	case *float64:
		x, ok := ToFloat(v)
		if !ok {
			return bad("a number")
		}
		*p = x
	case *int:
		x, ok := ToFloat(v)
		if !ok {
			return bad("a number")
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<53 {
			return a.Errorf(name, "%s must be a whole number, got %s", name, FormatNumber(x))
		}
		*p = int(x)
	case *Length:
		var n int
		if err := a.unpack(name, v, &n); err != nil {
			return err
		}
		if n < 0 {
			return a.Errorf(name, "%s must not be negative, got %d", name, n)
		}
		if n > MaxLength {
			return a.Errorf(name, "%s = %d is more than the %d elements a vector may have", name, n, MaxLength)
		}
		*p = Length(n)
	case *PositiveInt:
		var n int
		if err := a.unpack(name, v, &n); err != nil {
			return err
		}
		if n < 1 {
			return a.Errorf(name, "%s must be at least 1, got %d", name, n)
		}
		*p = PositiveInt(n)
	case *string:
		s, ok := v.(Str)
		if !ok {
			return bad("a string")
		}
		*p = string(s)
	case *bool:
		b, ok := v.(Bool)
		if !ok {
			return bad("true or false")
		}
		*p = bool(b)
	case *[]float64:
		xs, ok := ToFloats(v)
		if !ok {
			return bad("a vector")
		}
		*p = xs
	case **mat.Dense:
		m, ok := ToMatrix(v)
		if !ok {
			return bad("a matrix or a vector")
		}
		*p = m
	case **Record:
		r, ok := v.(*Record)
		if !ok {
			return bad("a record")
		}
		*p = r
	case Unpacker:
		if err := p.UnpackArg(name, v); err != nil {
			var ae *ast.Error
			if errors.As(err, &ae) {
				return err
			}
			return &ast.Error{Pos: a.PosOf(name), Msg: a.prefixed(err.Error()), Cause: err}
		}
	default:
		panic(fmt.Sprintf("eval: Unpack(%s): cannot unpack into %T", a.b.Name, target))
	}
	return nil
}

// Num returns a numeric argument.
func (a *Args) Num(name string) (x float64, err error) {
	err = a.Unpack(name, &x)
	return x, err
}

// Int returns an argument that must be a whole number.
func (a *Args) Int(name string) (n int, err error) {
	err = a.Unpack(name, &n)
	return n, err
}

// MaxLength is the most elements a builtin makes one vector of: a larger
// request is almost surely a slip (1e9 for 1e3), and would exhaust memory
// rather than fail.
const MaxLength = 100_000_000

// Length is Int for a vector length: 0 to MaxLength.
func (a *Args) Length(name string) (int, error) {
	var n Length
	err := a.Unpack(name, &n)
	return int(n), err
}

// PositiveInt returns an argument that must be a whole number ≥ 1.
func (a *Args) PositiveInt(name string) (int, error) {
	var n PositiveInt
	err := a.Unpack(name, &n)
	return int(n), err
}

// Str returns a string argument.
func (a *Args) Str(name string) (s string, err error) {
	err = a.Unpack(name, &s)
	return s, err
}

// Bool returns a true/false argument.
func (a *Args) Bool(name string) (b bool, err error) {
	err = a.Unpack(name, &b)
	return b, err
}

// Floats returns a number, a vector, or a matrix with one row or one column,
// as a slice.
func (a *Args) Floats(name string) (xs []float64, err error) {
	err = a.Unpack(name, &xs)
	return xs, err
}

// Matrix returns a data argument as a matrix with a row per observation: a
// vector is a column (n×1), as LANGUAGE.md says.
func (a *Args) Matrix(name string) (m *mat.Dense, err error) {
	err = a.Unpack(name, &m)
	return m, err
}

// Record returns a record argument.
func (a *Args) Record(name string) (r *Record, err error) {
	err = a.Unpack(name, &r)
	return r, err
}

// Seed returns the `seed` argument when given, and otherwise the next seed of
// the run's stream, so unseeded calls are reproducible under `--seed`.
func (a *Args) Seed() (uint64, error) {
	if a.b.hasParam("seed") && a.Value("seed") != nil {
		n, err := a.Int("seed")
		if err != nil {
			return 0, err
		}
		if n < 0 {
			return 0, a.Errorf("seed", "seed must not be negative, got %d", n)
		}
		return uint64(n), nil
	}
	if a.Th.seeds != nil {
		return a.Th.seeds.Uint64(), nil
	}
	return a.Th.in.nextSeed(), nil
}

// Rand returns a random stream seeded by Seed.
func (a *Args) Rand() (*rand.Rand, error) {
	s, err := a.Seed()
	if err != nil {
		return nil, err
	}
	return rng.New(s, rng.Builtin), nil
}

func (b *Builtin) hasParam(name string) bool {
	for _, p := range b.Sig.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// Described is a value that says more about itself in messages than its
// Type: a value users often pass where it does not belong names what to
// write instead ("model m without its data (call it with …)").
type Described interface {
	Describe() string
}

// Describe names a value's kind and shape for messages: "number",
// "vector of length 3", "matrix 3×2", "record", or a Described value's
// own words.
func Describe(v Value) string {
	if d, ok := v.(Described); ok {
		return d.Describe()
	}
	switch v := v.(type) {
	case *Vec:
		return fmt.Sprintf("vector of length %d", len(v.Data))
	case *ADVec:
		return fmt.Sprintf("vector of length %d", len(v.Vs))
	case *Mat:
		r, c := v.Dims()
		return fmt.Sprintf("matrix %d×%d", r, c)
	case *ADMat:
		return fmt.Sprintf("matrix %d×%d", v.Rows, v.Cols)
	case Str:
		return fmt.Sprintf("string %q", string(v))
	case nil:
		return "nothing"
	}
	return v.Type()
}

// ToFloat converts a number (or a 1-element vector or 1×1 matrix) to float64.
// A value that depends on model parameters gives its current value.
func ToFloat(v Value) (float64, bool) {
	switch v := v.(type) {
	case Num:
		return float64(v), true
	case *ADNum:
		return v.Value(), true
	case *Vec:
		if len(v.Data) == 1 {
			return v.Data[0], true
		}
	case *Mat:
		if r, c := v.Dims(); r == 1 && c == 1 {
			return v.M.At(0, 0), true
		}
	}
	return 0, false
}

// ToFloats converts a number, vector or single-row/column matrix to a slice.
func ToFloats(v Value) ([]float64, bool) {
	switch v := v.(type) {
	case Num:
		return []float64{float64(v)}, true
	case *Vec:
		return v.Data, true
	case *ADNum:
		return []float64{v.Value()}, true
	case *ADVec:
		return v.Values(), true
	case *Mat:
		r, c := v.Dims()
		if c == 1 {
			return mat.Col(nil, 0, v.M), true
		}
		if r == 1 {
			return mat.Row(nil, 0, v.M), true
		}
	}
	return nil, false
}

// ToMatrix converts data to a matrix with one row per observation; a vector
// becomes a column.
func ToMatrix(v Value) (*mat.Dense, bool) {
	switch v := v.(type) {
	case *Mat:
		return v.M, true
	case *Vec:
		if len(v.Data) == 0 {
			return &mat.Dense{}, true
		}
		return mat.NewDense(len(v.Data), 1, v.Data), true
	case Num:
		return mat.NewDense(1, 1, []float64{float64(v)}), true
	}
	return nil, false
}

// RestErrorf makes an error positioned at variadic argument i.
func (a *Args) RestErrorf(i int, format string, args ...any) error {
	pos := a.Pos
	if i < len(a.RestPos) {
		pos = a.RestPos[i]
	}
	return &ast.Error{Pos: pos, Msg: a.prefixed(fmt.Sprintf(format, args...))}
}
