package eval

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
)

// FromGo converts a Go value to a KML value: float64 and the integer types
// to numbers, bool, string, []float64 to a vector, a gonum matrix to a
// matrix (copied), map[string]any to a record (keys sorted), []any and
// []string to a vector or list as a bracket literal would, and KML values
// unchanged.
func FromGo(v any) (Value, error) {
	switch v := v.(type) {
	case Value:
		return v, nil
	case float64:
		return Num(v), nil
	case float32:
		return Num(v), nil
	case int:
		return Num(v), nil
	case int64:
		return Num(v), nil
	case int32:
		return Num(v), nil
	case uint64:
		return Num(v), nil
	case bool:
		return Bool(v), nil
	case string:
		return Str(v), nil
	case []float64:
		return &Vec{Data: append([]float64(nil), v...)}, nil
	case *mat.Dense:
		return &Mat{M: mat.DenseCopyOf(v)}, nil
	case mat.Matrix:
		return &Mat{M: mat.DenseCopyOf(v)}, nil
	case []string:
		l := &List{}
		for _, s := range v {
			l.Elems = append(l.Elems, Str(s))
		}
		return l, nil
	case []any:
		vals := make([]Value, len(v))
		for i, e := range v {
			x, err := FromGo(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			vals[i] = x
		}
		return MakeVector(ast.Pos{}, vals, func(int) ast.Pos { return ast.Pos{} })
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r := NewRecord()
		for _, k := range keys {
			x, err := FromGo(v[k])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			r.Set(k, x)
		}
		return r, nil
	}
	return nil, fmt.Errorf("cannot convert a Go %T to a KML value", v)
}

// GoValuer is a value with its own Go form for ToGo.
type GoValuer interface {
	GoValue() any
}

// ToGo converts a KML value to Go: numbers to float64, bool, string,
// vectors to []float64 and matrices to *mat.Dense (both copied), records to
// map[string]any, lists to []any, none to nil; other values by their
// GoValue method.
func ToGo(v Value) (any, error) {
	switch v := v.(type) {
	case Num:
		return float64(v), nil
	case Bool:
		return bool(v), nil
	case Str:
		return string(v), nil
	case *Vec:
		return append([]float64(nil), v.Data...), nil
	case *Mat:
		return mat.DenseCopyOf(v.M), nil
	case *Record:
		out := map[string]any{}
		for _, k := range v.keys {
			x, err := ToGo(v.vals[k])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			out[k] = x
		}
		return out, nil
	case *List:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			x, err := ToGo(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case None:
		return nil, nil
	case GoValuer:
		return v.GoValue(), nil
	}
	return nil, fmt.Errorf("a %s has no Go form", v.Type())
}
