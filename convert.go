package kml

import (
	"fmt"
	"reflect"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// FromGo converts a Go value to a KML value: float64 and the integer types
// to numbers, bool, string, []float64 to a vector, a gonum matrix to a
// matrix (copied), map[string]any to a record (keys sorted), []any and
// []string to a vector or list as a bracket literal would, and KML values
// unchanged.
func FromGo(v any) (eval.Value, error) {
	switch v := v.(type) {
	case eval.Value:
		return v, nil
	case float64:
		return eval.Num(v), nil
	case bool:
		return eval.Bool(v), nil
	case string:
		return eval.Str(v), nil
	case []float64:
		return &eval.Vec{Data: append([]float64(nil), v...)}, nil
	case *mat.Dense:
		if v == nil || v.IsEmpty() {
			return nil, fmt.Errorf("cannot convert an empty or nil *mat.Dense to a KML value")
		}
		return &eval.Mat{M: mat.DenseCopyOf(v)}, nil
	case mat.Matrix:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, fmt.Errorf("cannot convert a nil %T to a KML value", v)
		}
		if r, c := v.Dims(); r == 0 || c == 0 {
			return nil, fmt.Errorf("cannot convert an empty %T to a KML value", v)
		}
		return &eval.Mat{M: mat.DenseCopyOf(v)}, nil
	case []string:
		l := &eval.List{}
		for _, s := range v {
			l.Elems = append(l.Elems, eval.Str(s))
		}
		return l, nil
	case []any:
		vals := make([]eval.Value, len(v))
		for i, e := range v {
			x, err := FromGo(e)
			if err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
			vals[i] = x
		}
		return eval.MakeVector(ast.Pos{}, vals, func(int) ast.Pos { return ast.Pos{} })
	}
	return fromReflect(v)
}

// fromReflect converts the remaining Go shapes a caller is likely to have:
// numbers of any integer or float type, slices and arrays of them (a
// vector), slices of such slices (a matrix, one inner slice per row) and
// maps with string keys (a record, fields in key order).
func fromReflect(v any) (eval.Value, error) {
	fail := fmt.Errorf("cannot convert a Go %T to a KML value", v)
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return nil, fail
	}
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return eval.Num(rv.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return eval.Num(rv.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return eval.Num(rv.Float()), nil
	case reflect.Slice, reflect.Array:
		if xs, ok := numbers(rv); ok {
			return &eval.Vec{Data: xs}, nil
		}
		if rv.Len() == 0 || (rv.Index(0).Kind() != reflect.Slice && rv.Index(0).Kind() != reflect.Array) {
			return nil, fail
		}
		var data []float64
		cols := -1
		for i := 0; i < rv.Len(); i++ {
			row, ok := numbers(rv.Index(i))
			if !ok {
				return nil, fail
			}
			if cols >= 0 && len(row) != cols {
				return nil, fmt.Errorf("cannot convert a Go %T to a matrix: row 1 has %d values, row %d has %d", v, cols, i+1, len(row))
			}
			cols = len(row)
			data = append(data, row...)
		}
		if cols == 0 {
			return nil, fmt.Errorf("cannot convert a Go %T with empty rows to a matrix", v)
		}
		return &eval.Mat{M: mat.NewDense(rv.Len(), cols, data)}, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fail
		}
		fields := map[string]any{}
		for it := rv.MapRange(); it.Next(); {
			fields[it.Key().String()] = it.Value().Interface()
		}
		keys := make([]string, 0, len(fields))
		for k := range fields {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		r := eval.NewRecord()
		for _, k := range keys {
			x, err := FromGo(fields[k])
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			r.Set(k, x)
		}
		return r, nil
	}
	return nil, fail
}

// numbers reads a slice or array of integers or floats.
func numbers(rv reflect.Value) ([]float64, bool) {
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]float64, rv.Len())
	switch rv.Type().Elem().Kind() {
	case reflect.Float32, reflect.Float64:
		for i := range out {
			out[i] = rv.Index(i).Float()
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		for i := range out {
			out[i] = float64(rv.Index(i).Int())
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		for i := range out {
			out[i] = float64(rv.Index(i).Uint())
		}
	default:
		return nil, false
	}
	return out, true
}

// GoValuer is a value with its own Go form for ToGo.
type GoValuer interface {
	GoValue() any
}

// ToGo converts a KML value to Go: numbers to float64, bool, string,
// vectors to []float64 and matrices to *mat.Dense (both copied), records to
// map[string]any, lists to []any, none to nil; other values by their
// GoValue method.
func ToGo(v eval.Value) (any, error) {
	switch v := v.(type) {
	case eval.Num:
		return float64(v), nil
	case eval.Bool:
		return bool(v), nil
	case eval.Str:
		return string(v), nil
	case *eval.Vec:
		return append([]float64(nil), v.Data...), nil
	case *eval.Mat:
		return mat.DenseCopyOf(v.M), nil
	case *eval.Record:
		out := map[string]any{}
		for _, k := range v.AttrNames() {
			f, _ := v.Attr(k)
			x, err := ToGo(f)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", k, err)
			}
			out[k] = x
		}
		return out, nil
	case *eval.List:
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			x, err := ToGo(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case eval.None:
		return nil, nil
	case GoValuer:
		return v.GoValue(), nil
	}
	return nil, fmt.Errorf("a %s has no Go form", v.Type())
}
