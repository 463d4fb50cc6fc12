package eval

import "fmt"

// The general argument kinds that builtins of several domains share: they
// live here, beside Args, so that no library package borrows them from
// another.

// IntIn reads an integer setting between lo and hi (both included).
func (a *Args) IntIn(name string, lo, hi int) (int, error) {
	n, err := a.Int(name)
	switch {
	case err != nil:
	case n < lo:
		err = a.Errorf(name, "%s must be at least %d, got %d", name, lo, n)
	case n > hi:
		err = a.Errorf(name, "%s must be at most %d, got %d", name, hi, n)
	}
	return n, err
}

// Names is an argument that is a list of names (column names, labels): a
// string, or a list of strings. It is an Unpacker.
type Names []string

// UnpackArg implements Unpacker.
func (c *Names) UnpackArg(name string, v Value) error {
	if s, ok := v.(Str); ok {
		*c = Names{string(s)}
		return nil
	}
	l, ok := v.(*List)
	if !ok {
		return fmt.Errorf("%s must be a list of strings like [\"x\", \"y\"], got %s", name, Describe(v))
	}
	out := make(Names, len(l.Elems))
	for i, e := range l.Elems {
		s, ok := e.(Str)
		if !ok {
			return fmt.Errorf("%s must hold strings, element %d is %s", name, i+1, Describe(e))
		}
		out[i] = string(s)
	}
	*c = out
	return nil
}

// Elem returns element i (0-based) of a vector value, keeping tape nodes;
// any other value is returned as it is.
func Elem(v Value, i int) Value {
	switch v := v.(type) {
	case *Vec:
		return Num(v.Data[i])
	case *ADVec:
		return &ADNum{T: v.T, V: v.Vs[i]}
	}
	return v
}
