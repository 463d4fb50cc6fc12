package eval

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/ad"
)

// selection is one axis of an index: the chosen 0-based positions, and
// whether the index was a single number (which drops the axis).
type selection struct {
	idx    []int
	single bool
}

func (th *Thread) index(e *ast.Index, env *Env) (Value, error) {
	x, err := th.expr(e.X, env)
	if err != nil {
		return nil, err
	}
	// The lengths of the axes, for open slices and range checks.
	var lens []int
	switch x := x.(type) {
	case *Vec:
		lens = []int{len(x.Data)}
	case *ADVec:
		lens = []int{len(x.Vs)}
	case *List:
		lens = []int{len(x.Elems)}
	case *Mat, *ADMat:
		r, c := x.(interface{ Dims() (int, int) }).Dims()
		if len(e.Indices) == 1 && c == 1 {
			lens = []int{r}
		} else {
			lens = []int{r, c}
		}
	default:
		return nil, ast.Errorf(e.Lbrack, "%s cannot be indexed", Describe(x))
	}
	if len(e.Indices) > len(lens) && !(len(lens) == 1 && len(e.Indices) == 2) {
		return nil, ast.Errorf(e.Lbrack, "%s takes at most %d index, got %d", Describe(x), len(lens), len(e.Indices))
	}
	if len(e.Indices) == 2 && len(lens) == 1 {
		m, isMat := x.(interface{ Dims() (int, int) })
		if !isMat {
			return nil, ast.Errorf(e.Lbrack, "%s takes one index, got 2", Describe(x))
		}
		r, c := m.Dims()
		lens = []int{r, c}
	}
	sels := make([]selection, len(e.Indices))
	for k, ie := range e.Indices {
		s, err := th.selection(ie, env, lens[k], x, k, len(lens))
		if err != nil {
			return nil, err
		}
		sels[k] = s
	}
	switch x := x.(type) {
	case *Vec:
		if sels[0].single {
			return Num(x.Data[sels[0].idx[0]]), nil
		}
		out := make([]float64, len(sels[0].idx))
		for i, j := range sels[0].idx {
			out[i] = x.Data[j]
		}
		return &Vec{Data: out}, nil
	case *ADVec:
		if sels[0].single {
			return &ADNum{T: x.T, V: x.Vs[sels[0].idx[0]]}, nil
		}
		out := make([]ad.Var, len(sels[0].idx))
		for i, j := range sels[0].idx {
			out[i] = x.Vs[j]
		}
		return &ADVec{T: x.T, Vs: out}, nil
	case *List:
		if sels[0].single {
			return x.Elems[sels[0].idx[0]], nil
		}
		out := make([]Value, len(sels[0].idx))
		for i, j := range sels[0].idx {
			out[i] = x.Elems[j]
		}
		return &List{Elems: out}, nil
	case *ADMat:
		return indexADMat(e, x, sels)
	case *Mat:
		r, c := x.Dims()
		if len(sels) == 1 {
			if c == 1 { // a one-column matrix indexes like a vector
				sels = []selection{sels[0], {idx: []int{0}, single: true}}
			} else { // x[i] is observation i; x[i:j] the rows i to j
				all := make([]int, c)
				for j := range all {
					all[j] = j
				}
				sels = []selection{sels[0], {idx: all}}
			}
		}
		rs, cs := sels[0], sels[1]
		switch {
		case rs.single && cs.single:
			return Num(x.M.At(rs.idx[0], cs.idx[0])), nil
		case rs.single:
			out := make([]float64, len(cs.idx))
			for k, j := range cs.idx {
				out[k] = x.M.At(rs.idx[0], j)
			}
			return &Vec{Data: out}, nil
		case cs.single:
			out := make([]float64, len(rs.idx))
			for k, i := range rs.idx {
				out[k] = x.M.At(i, cs.idx[0])
			}
			return &Vec{Data: out}, nil
		}
		if len(rs.idx) == 0 || len(cs.idx) == 0 {
			return nil, ast.Errorf(e.Lbrack, "this index selects no rows or no columns of a %d×%d matrix", r, c)
		}
		out := mat.NewDense(len(rs.idx), len(cs.idx), nil)
		for a, i := range rs.idx {
			for b, j := range cs.idx {
				out.Set(a, b, x.M.At(i, j))
			}
		}
		return &Mat{M: out}, nil
	}
	return nil, ast.Errorf(e.Lbrack, "%s cannot be indexed", Describe(x))
}

// indexADMat selects from a matrix on the tape as from a data matrix:
// the selected nodes, no new ones.
func indexADMat(e *ast.Index, x *ADMat, sels []selection) (Value, error) {
	if len(sels) == 1 {
		all := make([]int, x.Cols)
		for j := range all {
			all[j] = j
		}
		if x.Cols == 1 {
			sels = []selection{sels[0], {idx: []int{0}, single: true}}
		} else {
			sels = []selection{sels[0], {idx: all}}
		}
	}
	rs, cs := sels[0], sels[1]
	pick := func(rows, cols []int) []ad.Var {
		out := make([]ad.Var, 0, len(rows)*len(cols))
		for _, i := range rows {
			for _, j := range cols {
				out = append(out, x.Vs[i*x.Cols+j])
			}
		}
		return out
	}
	switch {
	case rs.single && cs.single:
		return &ADNum{T: x.T, V: x.Vs[rs.idx[0]*x.Cols+cs.idx[0]]}, nil
	case rs.single || cs.single:
		return &ADVec{T: x.T, Vs: pick(rs.idx, cs.idx)}, nil
	}
	if len(rs.idx) == 0 || len(cs.idx) == 0 {
		return nil, ast.Errorf(e.Lbrack, "this index selects no rows or no columns of a %d×%d matrix", x.Rows, x.Cols)
	}
	return &ADMat{T: x.T, Rows: len(rs.idx), Cols: len(cs.idx), Vs: pick(rs.idx, cs.idx)}, nil
}

// selection evaluates one index expression against an axis of length n:
// a number, a slice `lo:hi` (1-based, inclusive, either end open) or a
// vector of numbers.
func (th *Thread) selection(ie ast.Expr, env *Env, n int, x Value, axis, rank int) (selection, error) {
	what := func() string {
		if rank == 2 {
			if axis == 0 {
				return "row"
			}
			return "column"
		}
		return "index"
	}
	check := func(pos ast.Pos, v float64) (int, error) {
		if v != math.Trunc(v) {
			return 0, ast.Errorf(pos, "%s %s is not a whole number", what(), FormatNumber(v))
		}
		if v < 1 || v > float64(n) {
			msg := "%s %s is out of range for %s (indices run from 1 to %d)"
			if v == 0 {
				msg = "%s %s is out of range for %s: indices start at 1 (and run to %d)"
			}
			return 0, ast.Errorf(pos, msg, what(), FormatNumber(v), Describe(x), n)
		}
		return int(v) - 1, nil
	}
	if sl, ok := ie.(*ast.Slice); ok {
		lo, hi := 1.0, float64(n)
		if sl.Lo != nil {
			v, err := th.indexNumber(sl.Lo, env)
			if err != nil {
				return selection{}, err
			}
			lo = v
		}
		if sl.Hi != nil {
			v, err := th.indexNumber(sl.Hi, env)
			if err != nil {
				return selection{}, err
			}
			hi = v
		}
		if lo == hi+1 { // an empty range such as x[4:3]
			return selection{idx: []int{}}, nil
		}
		if lo > hi {
			return selection{}, ast.Errorf(sl.At, "slice %s:%s runs backwards", FormatNumber(lo), FormatNumber(hi))
		}
		a, err := check(sl.At, lo)
		if err != nil {
			return selection{}, err
		}
		b, err := check(sl.At, hi)
		if err != nil {
			return selection{}, err
		}
		idx := make([]int, 0, b-a+1)
		for i := a; i <= b; i++ {
			idx = append(idx, i)
		}
		return selection{idx: idx}, nil
	}
	v, err := th.expr(ie, env)
	if err != nil {
		return selection{}, err
	}
	switch v := v.(type) {
	case Num:
		i, err := check(ie.Pos(), float64(v))
		return selection{idx: []int{i}, single: true}, err
	case *Vec:
		idx := make([]int, len(v.Data))
		for k, x := range v.Data {
			i, err := check(ie.Pos(), x)
			if err != nil {
				return selection{}, err
			}
			idx[k] = i
		}
		return selection{idx: idx}, nil
	}
	if IsAD(v) {
		return selection{}, ast.Errorf(ie.Pos(), "an index cannot depend on model parameters")
	}
	return selection{}, ast.Errorf(ie.Pos(), "an index must be a number, a slice a:b or a vector of numbers, got %s", Describe(v))
}

func (th *Thread) indexNumber(e ast.Expr, env *Env) (float64, error) {
	v, err := th.expr(e, env)
	if err != nil {
		return 0, err
	}
	n, ok := v.(Num)
	if !ok {
		return 0, ast.Errorf(e.Pos(), "a slice bound must be a number, got %s", Describe(v))
	}
	return float64(n), nil
}
