package eval

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/linalg"
)

// HasBinary is a value with its own meaning for binary operators (kernels:
// `k1 + k2`, `2 * k`). Binary asks the left operand first, then the right
// one with right set.
type HasBinary interface {
	Value
	Binary(op string, y Value, right bool) (Value, bool, error)
}

// List is a sequence of values that are not all numbers: `["x", "y"]`, a
// list of distributions for `mixture`.
type List struct{ Elems []Value }

func (*List) Type() string { return "list" }
func (l *List) String() string {
	s := "["
	for i, e := range l.Elems {
		if i > 0 {
			s += ", "
		}
		s += Repr(e)
	}
	return s + "]"
}

// JSON writes the list as an array.
func (l *List) JSON() any {
	out := make([]any, len(l.Elems))
	for i, e := range l.Elems {
		out[i] = ToJSON(e)
	}
	return out
}

func (th *Thread) vector(e *ast.Vector, env *Env) (Value, error) {
	vals := make([]Value, len(e.Elems))
	for i, x := range e.Elems {
		v, err := th.expr(x, env)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	return MakeVector(e.At, vals, func(i int) ast.Pos { return e.Elems[i].Pos() })
}

// MakeVector builds the value of a bracket literal: numbers make a vector,
// equal-length vectors make a matrix (one row each), anything else a list.
func MakeVector(at ast.Pos, vals []Value, posOf func(int) ast.Pos) (Value, error) {
	if len(vals) == 0 {
		return &Vec{Data: []float64{}}, nil
	}
	allNum, anyAD, allVec := true, false, true
	for _, v := range vals {
		switch v.(type) {
		case Num:
			allVec = false
		case *ADNum:
			anyAD, allVec = true, false
		case *Vec:
			allNum = false
		case *ADVec:
			anyAD, allNum = true, false
		default:
			allNum, allVec = false, false
		}
	}
	switch {
	case allNum && !anyAD:
		xs := make([]float64, len(vals))
		for i, v := range vals {
			xs[i] = float64(v.(Num))
		}
		return &Vec{Data: xs}, nil
	case allNum:
		var t *ad.Tape
		for _, v := range vals {
			if a, ok := v.(*ADNum); ok {
				t = a.T
			}
		}
		vs := make([]ad.Var, len(vals))
		for i, v := range vals {
			vs[i] = asVar(t, v)
		}
		return &ADVec{T: t, Vs: vs}, nil
	case allVec && !anyAD:
		cols := len(vals[0].(*Vec).Data)
		m := mat.NewDense(len(vals), max(cols, 1), nil)
		if cols == 0 {
			return nil, ast.Errorf(at, "a matrix needs at least one column")
		}
		for i, v := range vals {
			row := v.(*Vec).Data
			if len(row) != cols {
				return nil, ast.Errorf(posOf(i), "matrix rows must have equal lengths: row 1 has %d, row %d has %d", cols, i+1, len(row))
			}
			m.SetRow(i, row)
		}
		return &Mat{M: m}, nil
	case allVec:
		return adRows(at, vals, posOf)
	}
	for i, v := range vals {
		if _, ok := v.(*Mat); ok {
			return nil, ast.Errorf(posOf(i), "a matrix cannot be an element of [ ]; use rbind or cbind to join matrices")
		}
	}
	return &List{Elems: vals}, nil
}

// adRows makes a matrix on the tape from rows of which at least one is on
// it (data rows join the tape as inputs).
func adRows(at ast.Pos, vals []Value, posOf func(int) ast.Pos) (Value, error) {
	var t *ad.Tape
	for _, v := range vals {
		if a, ok := v.(*ADVec); ok {
			t = a.T
		}
	}
	row := func(v Value) []ad.Var {
		if a, ok := v.(*ADVec); ok {
			return a.Vs
		}
		xs := v.(*Vec).Data
		vs := make([]ad.Var, len(xs))
		for i, x := range xs {
			vs[i] = t.Input(x)
		}
		return vs
	}
	first := row(vals[0])
	cols := len(first)
	if cols == 0 {
		return nil, ast.Errorf(at, "a matrix needs at least one column")
	}
	vs := append([]ad.Var(nil), first...)
	for i, v := range vals[1:] {
		r := row(v)
		if len(r) != cols {
			return nil, ast.Errorf(posOf(i+1), "matrix rows must have equal lengths: row 1 has %d, row %d has %d", cols, i+2, len(r))
		}
		vs = append(vs, r...)
	}
	return &ADMat{T: t, Rows: len(vals), Cols: cols, Vs: vs}, nil
}

// asVar puts a number on the tape (constants become inputs with no parents,
// which receive no gradient that anyone reads).
func asVar(t *ad.Tape, v Value) ad.Var {
	switch v := v.(type) {
	case *ADNum:
		return v.V
	case Num:
		return t.Input(float64(v))
	}
	panic("eval: asVar of " + v.Type())
}

func unary(pos ast.Pos, op string, x Value) (Value, error) {
	switch op {
	case "!":
		if b, ok := x.(Bool); ok {
			return !b, nil
		}
		return nil, ast.Errorf(pos, "! needs true or false, got %s", Describe(x))
	case "-":
		switch x := x.(type) {
		case Num:
			return -x, nil
		case *Vec:
			out := make([]float64, len(x.Data))
			for i, v := range x.Data {
				out[i] = -v
			}
			return &Vec{Data: out}, nil
		case *Mat:
			var m mat.Dense
			m.Scale(-1, x.M)
			return &Mat{M: &m, sym: x.sym}, nil
		case *ADNum:
			return &ADNum{T: x.T, V: x.T.Neg(x.V)}, nil
		case *ADVec:
			vs := make([]ad.Var, len(x.Vs))
			for i, v := range x.Vs {
				vs[i] = x.T.Neg(v)
			}
			return &ADVec{T: x.T, Vs: vs}, nil
		case *ADMat:
			vs := x.T.Elementwise('*', ad.Operand{Vs: x.Vs}, ad.Operand{F: []float64{-1}}, len(x.Vs))
			return &ADMat{T: x.T, Rows: x.Rows, Cols: x.Cols, Vs: vs}, nil
		case HasBinary:
			if v, ok, err := x.Binary("*", Num(-1), true); ok || err != nil {
				return v, posErr(pos, err)
			}
		}
		return nil, ast.Errorf(pos, "cannot negate %s", Describe(x))
	}
	return nil, ast.Errorf(pos, "unknown operator %s", op)
}

func posErr(pos ast.Pos, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(*ast.Error); ok {
		return err
	}
	return &ast.Error{Pos: pos, Msg: err.Error(), Cause: err}
}

// Binary applies a binary operator (all but && and ||, which short-circuit
// in the evaluator), broadcasting over vectors and matrices.
func Binary(pos ast.Pos, op string, x, y Value) (Value, error) {
	if h, ok := x.(HasBinary); ok {
		if v, ok, err := h.Binary(op, y, false); ok || err != nil {
			return v, posErr(pos, err)
		}
	}
	if h, ok := y.(HasBinary); ok {
		if v, ok, err := h.Binary(op, x, true); ok || err != nil {
			return v, posErr(pos, err)
		}
	}
	switch xv := x.(type) {
	case Str:
		if yv, ok := y.(Str); ok {
			switch op {
			case "+":
				return xv + yv, nil
			case "==":
				return Bool(xv == yv), nil
			case "!=":
				return Bool(xv != yv), nil
			case "<":
				return Bool(xv < yv), nil
			case "<=":
				return Bool(xv <= yv), nil
			case ">":
				return Bool(xv > yv), nil
			case ">=":
				return Bool(xv >= yv), nil
			}
		}
	case Bool:
		if yv, ok := y.(Bool); ok {
			switch op {
			case "==":
				return Bool(xv == yv), nil
			case "!=":
				return Bool(xv != yv), nil
			}
		}
	}
	if op == "@" {
		return matmul(pos, x, y)
	}
	if _, ok := arith[op]; !ok {
		if _, ok := compare[op]; !ok {
			return nil, ast.Errorf(pos, "unknown operator %s", op)
		}
	}
	a, okx := asArray(x)
	b, oky := asArray(y)
	if !okx || !oky {
		return nil, ast.Errorf(pos, "cannot apply %s to %s and %s", op, Describe(x), Describe(y))
	}
	if cmp, ok := compare[op]; ok {
		return compareArrays(pos, op, cmp, a, b)
	}
	return arithArrays(pos, op, a, b)
}

var arith = map[string]func(x, y float64) float64{
	"+": func(x, y float64) float64 { return x + y },
	"-": func(x, y float64) float64 { return x - y },
	"*": func(x, y float64) float64 { return x * y },
	"/": func(x, y float64) float64 { return x / y },
	"^": math.Pow,
	"%": func(x, y float64) float64 { return x - y*math.Floor(x/y) },
}

var compare = map[string]func(x, y float64) bool{
	"==": func(x, y float64) bool { return x == y },
	"!=": func(x, y float64) bool { return x != y },
	"<":  func(x, y float64) bool { return x < y },
	"<=": func(x, y float64) bool { return x <= y },
	">":  func(x, y float64) bool { return x > y },
	">=": func(x, y float64) bool { return x >= y },
}

// array is a numeric value seen as a shaped array: a scalar (rank 0), a
// vector (rank 1) or a matrix (rank 2); elements are floats or, when t is
// set, tape nodes.
type array struct {
	rank       int
	rows, cols int // vector: rows = length
	f          []float64
	t          *ad.Tape
	vs         []ad.Var
	sym        bool // a matrix marked exactly symmetric (Mat.sym)
}

func (a array) n() int {
	switch a.rank {
	case 0:
		return 1
	case 1:
		return a.rows
	}
	return a.rows * a.cols
}

func asArray(v Value) (array, bool) {
	switch v := v.(type) {
	case Num:
		return array{rank: 0, f: []float64{float64(v)}}, true
	case *Vec:
		return array{rank: 1, rows: len(v.Data), f: v.Data}, true
	case *Mat:
		r, c := v.Dims()
		return array{rank: 2, rows: r, cols: c, f: linalg.RowMajor(v.M), sym: v.sym}, true
	case *ADNum:
		return array{rank: 0, t: v.T, vs: []ad.Var{v.V}}, true
	case *ADVec:
		return array{rank: 1, rows: len(v.Vs), t: v.T, vs: v.Vs}, true
	case *ADMat:
		return array{rank: 2, rows: v.Rows, cols: v.Cols, t: v.T, vs: v.Vs}, true
	}
	return array{}, false
}

func describeArray(a array) string {
	switch a.rank {
	case 0:
		return "number"
	case 1:
		return fmt.Sprintf("vector of length %d", a.rows)
	}
	return fmt.Sprintf("matrix %d×%d", a.rows, a.cols)
}

// broadcast decides the result shape of an elementwise operation and how
// each operand's element index follows from the result's.
func broadcast(pos ast.Pos, op string, a, b array) (out array, ia, ib func(i int) int, err error) {
	same := func(i int) int { return i }
	zero := func(int) int { return 0 }
	mismatch := func() error {
		return &ast.Error{Pos: pos, Msg: fmt.Sprintf("shapes do not match for %s: %s and %s", op, describeArray(a), describeArray(b)),
			Cause: &ElementwiseMismatch{Op: op, Left: describeArray(a), Right: describeArray(b)}}
	}
	switch {
	case a.rank == 0:
		return array{rank: b.rank, rows: b.rows, cols: b.cols}, zero, same, nil
	case b.rank == 0:
		return array{rank: a.rank, rows: a.rows, cols: a.cols}, same, zero, nil
	case a.rank == 1 && b.rank == 1:
		if a.rows != b.rows {
			return out, nil, nil, mismatch()
		}
		return array{rank: 1, rows: a.rows}, same, same, nil
	case a.rank == 2 && b.rank == 2:
		switch {
		case a.rows == b.rows && a.cols == b.cols:
			return array{rank: 2, rows: a.rows, cols: a.cols}, same, same, nil
		case a.cols == b.cols && b.rows == 1:
			c := a.cols
			return array{rank: 2, rows: a.rows, cols: c}, same, func(i int) int { return i % c }, nil
		case a.cols == b.cols && a.rows == 1:
			c := b.cols
			return array{rank: 2, rows: b.rows, cols: c}, func(i int) int { return i % c }, same, nil
		case a.rows == b.rows && b.cols == 1:
			c := a.cols
			return array{rank: 2, rows: a.rows, cols: c}, same, func(i int) int { return i / c }, nil
		case a.rows == b.rows && a.cols == 1:
			c := b.cols
			return array{rank: 2, rows: a.rows, cols: c}, func(i int) int { return i / c }, same, nil
		}
		return out, nil, nil, mismatch()
	default:
		// A matrix and a vector: an n×1 matrix is the vector's column; a
		// vector as long as the matrix is wide applies to every row.
		m, v, mFirst := a, b, true
		if a.rank == 1 {
			m, v, mFirst = b, a, false
		}
		var im, iv func(int) int
		switch {
		case m.cols == 1 && m.rows == v.rows:
			out, im, iv = array{rank: 1, rows: v.rows}, same, same
		case m.cols == v.rows:
			c := m.cols
			out, im, iv = array{rank: 2, rows: m.rows, cols: c}, same, func(i int) int { return i % c }
		default:
			return out, nil, nil, mismatch()
		}
		if mFirst {
			return out, im, iv, nil
		}
		return out, iv, im, nil
	}
}

func arithArrays(pos ast.Pos, op string, a, b array) (Value, error) {
	out, ia, ib, err := broadcast(pos, op, a, b)
	if err != nil {
		return nil, err
	}
	n := out.n()
	if a.t == nil && b.t == nil {
		f := arith[op]
		res := make([]float64, n)
		for i := range res {
			res[i] = f(a.f[ia(i)], b.f[ib(i)])
		}
		v := arrayValue(out, res, nil, nil)
		// Element (i, j) is f of the operands' (i, j), or of a number, so
		// exactly symmetric operands give an exactly symmetric result.
		if m, ok := v.(*Mat); ok {
			m.sym = (a.sym || a.rank == 0) && (b.sym || b.rank == 0)
		}
		return v, nil
	}
	t := a.t
	if t == nil {
		t = b.t
	}
	if out.rank > 0 && len(op) == 1 && op != "^" && op != "%" {
		// A vector or matrix result is one vector node (a number, or the
		// elements broadcast decided, as each operand).
		return arrayValue(out, nil, t, t.Elementwise(ad.Arith(op[0]), operand(a, ia, n), operand(b, ib, n), n)), nil
	}
	vs := make([]ad.Var, n)
	for i := range vs {
		vs[i] = adArith(t, op, a, ia(i), b, ib(i))
	}
	return arrayValue(out, nil, t, vs), nil
}

// operand is an array as a side of an elementwise operation with n
// results: a number, or its elements in the order idx maps the results
// to (a row or column of a matrix repeated when broadcast).
func operand(a array, idx func(int) int, n int) ad.Operand {
	if a.n() == 1 || a.n() == n {
		if a.t != nil {
			return ad.Operand{Vs: a.vs}
		}
		return ad.Operand{F: a.f}
	}
	if a.t != nil {
		vs := make([]ad.Var, n)
		for i := range vs {
			vs[i] = a.vs[idx(i)]
		}
		return ad.Operand{Vs: vs}
	}
	f := make([]float64, n)
	for i := range f {
		f[i] = a.f[idx(i)]
	}
	return ad.Operand{F: f}
}

// adArith records one elementwise operation where at least one side is on
// the tape.
func adArith(t *ad.Tape, op string, a array, i int, b array, j int) ad.Var {
	switch {
	case a.t != nil && b.t != nil:
		x, y := a.vs[i], b.vs[j]
		switch op {
		case "+":
			return t.Add(x, y)
		case "-":
			return t.Sub(x, y)
		case "*":
			return t.Mul(x, y)
		case "/":
			return t.Div(x, y)
		case "^":
			return t.Pow(x, y)
		}
	case a.t != nil:
		x, c := a.vs[i], b.f[j]
		switch op {
		case "+":
			return t.AddConst(x, c)
		case "-":
			return t.AddConst(x, -c)
		case "*":
			return t.MulConst(x, c)
		case "/":
			return t.MulConst(x, 1/c)
		case "^":
			return t.PowConst(x, c)
		}
	default:
		c, y := a.f[i], b.vs[j]
		switch op {
		case "+":
			return t.AddConst(y, c)
		case "-":
			return t.ConstSub(c, y)
		case "*":
			return t.MulConst(y, c)
		case "/":
			return t.ConstDiv(c, y)
		case "^":
			return t.ConstPow(c, y)
		}
	}
	// x % y = x − y·floor(x/y): derivative 1 in x and −floor(x/y) in y,
	// almost everywhere; one replayable node computed from its operands.
	xc, yc := peekAt(t, a, i), peekAt(t, b, j)
	var parents []ad.Var
	xp, yp := -1, -1 // the operands' places among the parents, −1 for data
	if a.t != nil {
		xp, parents = len(parents), append(parents, a.vs[i])
	}
	if b.t != nil {
		yp, parents = len(parents), append(parents, b.vs[j])
	}
	return t.Func(parents, func(v, d []float64) float64 {
		xv, yv := xc, yc
		if xp >= 0 {
			xv = v[xp]
		}
		if yp >= 0 {
			yv = v[yp]
		}
		if xp >= 0 {
			d[xp] = 1
		}
		if yp >= 0 {
			d[yp] = -math.Floor(xv / yv)
		}
		return arith["%"](xv, yv)
	})
}

// peekAt is element i of a, a tape value read without marking the
// recording (the node it goes into recomputes it at replay).
func peekAt(t *ad.Tape, a array, i int) float64 {
	if a.t != nil {
		return t.Peek(a.vs[i])
	}
	return a.f[i]
}

func valueAt(t *ad.Tape, a array, i int) float64 {
	if a.t != nil {
		return t.Value(a.vs[i])
	}
	return a.f[i]
}

func arrayValue(shape array, f []float64, t *ad.Tape, vs []ad.Var) Value {
	if t != nil {
		switch shape.rank {
		case 0:
			return &ADNum{T: t, V: vs[0]}
		case 1:
			return &ADVec{T: t, Vs: vs}
		}
		return &ADMat{T: t, Rows: shape.rows, Cols: shape.cols, Vs: vs}
	}
	switch shape.rank {
	case 0:
		return Num(f[0])
	case 1:
		return &Vec{Data: f}
	}
	return &Mat{M: mat.NewDense(shape.rows, shape.cols, f)}
}

func compareArrays(pos ast.Pos, op string, cmp func(x, y float64) bool, a, b array) (Value, error) {
	out, ia, ib, err := broadcast(pos, op, a, b)
	if err != nil {
		return nil, err
	}
	if out.rank == 0 {
		return Bool(cmp(valueAt(a.t, a, 0), valueAt(b.t, b, 0))), nil
	}
	res := make([]float64, out.n())
	for i := range res {
		if cmp(valueAt(a.t, a, ia(i)), valueAt(b.t, b, ib(i))) {
			res[i] = 1
		}
	}
	return arrayValue(out, res, nil, nil), nil
}

// MatmulMismatch is the cause of an `@` whose operands' inner dimensions
// differ: their ranks (1 a vector, 2 a matrix) and the inner dimension
// each brings, so that Model.BlameData can say which shape a data
// argument in either place should have.
type MatmulMismatch struct {
	Left, Right           int
	LeftInner, RightInner int
}

func (e *MatmulMismatch) Error() string {
	return fmt.Sprintf("@ with inner dimensions %d and %d", e.LeftInner, e.RightInner)
}

// Wants is the shape an operand on the left (left) or on the right should
// have to match the other one.
func (e *MatmulMismatch) Wants(left bool) string {
	if left {
		if e.Left == 1 {
			return fmt.Sprintf("a vector of length %d", e.RightInner)
		}
		return fmt.Sprintf("a matrix with %d columns", e.RightInner)
	}
	if e.Right == 1 {
		return fmt.Sprintf("a vector of length %d", e.LeftInner)
	}
	return fmt.Sprintf("a matrix with %d rows", e.LeftInner)
}

// ElementwiseMismatch is the cause of an elementwise operation whose
// operands' shapes do not broadcast: each operand's shape as the message
// describes it, so that Model.BlameData can say that a data argument
// should have the other's shape.
type ElementwiseMismatch struct {
	Op, Left, Right string
}

func (e *ElementwiseMismatch) Error() string {
	return fmt.Sprintf("%s of %s and %s", e.Op, e.Left, e.Right)
}

// Wants is the shape an operand on the left (left) or on the right should
// have: the other's (a number would broadcast too).
func (e *ElementwiseMismatch) Wants(left bool) string {
	if left {
		return "a " + e.Right
	}
	return "a " + e.Left
}

// matmul is `@`: matrix–matrix, matrix–vector, vector–matrix and the dot
// product of two vectors.
func matmul(pos ast.Pos, x, y Value) (Value, error) {
	a, okx := asArray(x)
	b, oky := asArray(y)
	if !okx || !oky || a.rank == 0 || b.rank == 0 {
		return nil, ast.Errorf(pos, "@ multiplies matrices and vectors, got %s and %s", Describe(x), Describe(y))
	}
	inner := func(ar array, left bool) int {
		if ar.rank == 1 {
			return ar.rows
		}
		if left {
			return ar.cols
		}
		return ar.rows
	}
	if inner(a, true) != inner(b, false) {
		return nil, &ast.Error{Pos: pos, Msg: fmt.Sprintf("shapes do not match for @: %s and %s", describeArray(a), describeArray(b)),
			Cause: &MatmulMismatch{Left: a.rank, Right: b.rank, LeftInner: inner(a, true), RightInner: inner(b, false)}}
	}
	if inner(a, true) == 0 && a.rank == 1 && b.rank == 1 {
		return Num(0), nil // the empty dot product
	}
	if a.n() == 0 || b.n() == 0 {
		return nil, ast.Errorf(pos, "@ of an empty operand: %s and %s", describeArray(a), describeArray(b))
	}
	if a.t == nil && b.t == nil {
		am := asDense(a, true)
		bm := asDense(b, false)
		var c mat.Dense
		c.Mul(am, bm)
		switch {
		case a.rank == 1 && b.rank == 1:
			return Num(c.At(0, 0)), nil
		case a.rank == 1:
			return &Vec{Data: mat.Row(nil, 0, &c)}, nil
		case b.rank == 1:
			return &Vec{Data: mat.Col(nil, 0, &c)}, nil
		}
		return &Mat{M: &c}, nil
	}
	t := a.t
	if t == nil {
		t = b.t
	}
	if a.rank == 2 && a.t != nil || b.rank == 2 && b.t != nil {
		return adMatMul(t, a, b), nil
	}
	// The dot product of two vectors is one node with its partials; a
	// product with a data matrix is one vector node (ad.MatVec).
	dot := func(left array, lrow int, right array, rcol int) ad.Var {
		k := inner(left, true)
		// Each term's operands: a parent's place, or −1 and the data value.
		type operand struct {
			p int
			c float64
		}
		terms := make([][2]operand, k)
		var parents []ad.Var
		for j := 0; j < k; j++ {
			li, ri := j, j
			if left.rank == 2 {
				li = lrow*left.cols + j
			}
			if right.rank == 2 {
				ri = j*right.cols + rcol
			}
			l, r := operand{-1, peekAt(t, left, li)}, operand{-1, peekAt(t, right, ri)}
			if left.t != nil {
				l.p, parents = len(parents), append(parents, left.vs[li])
			}
			if right.t != nil {
				r.p, parents = len(parents), append(parents, right.vs[ri])
			}
			terms[j] = [2]operand{l, r}
		}
		return t.Func(parents, func(v, d []float64) float64 {
			val := 0.0
			for _, tm := range terms {
				lv, rv := tm[0].c, tm[1].c
				if tm[0].p >= 0 {
					lv = v[tm[0].p]
				}
				if tm[1].p >= 0 {
					rv = v[tm[1].p]
				}
				val += lv * rv
				if tm[0].p >= 0 {
					d[tm[0].p] = rv
				}
				if tm[1].p >= 0 {
					d[tm[1].p] = lv
				}
			}
			return val
		})
	}
	switch {
	case a.rank == 1 && b.rank == 1:
		return &ADNum{T: t, V: dot(a, 0, b, 0)}, nil
	case a.rank == 2: // data matrix @ parameter vector: one BLAS node
		return &ADVec{T: t, Vs: t.MatVec(false, a.f, a.rows, a.cols, b.vs)}, nil
	default: // parameter vector @ data matrix
		return &ADVec{T: t, Vs: t.MatVec(true, b.f, b.rows, b.cols, a.vs)}, nil
	}
}

// asDense views a float array as a matrix for a product: a vector is a row
// on the left and a column on the right.
func asDense(a array, left bool) *mat.Dense {
	switch {
	case a.rank == 2:
		return mat.NewDense(a.rows, a.cols, a.f)
	case left:
		return mat.NewDense(1, a.rows, a.f)
	}
	return mat.NewDense(a.rows, 1, a.f)
}

// adMatMul is `@` with a matrix on the tape: one ad.MatMul, a vector taken
// as a row on the left and a column on the right.
func adMatMul(t *ad.Tape, a, b array) Value {
	am, bm := adMatrix(a, true), adMatrix(b, false)
	vs := t.MatMul(am, bm)
	switch {
	case a.rank == 1 || b.rank == 1:
		return &ADVec{T: t, Vs: vs}
	}
	return &ADMat{T: t, Rows: am.Rows, Cols: bm.Cols, Vs: vs}
}

// adMatrix views an array as a matrix operand, a vector as a row on the
// left and a column on the right.
func adMatrix(a array, left bool) ad.Matrix {
	m := ad.Matrix{Rows: a.rows, Cols: a.cols, Vs: a.vs}
	if a.t == nil {
		m.F = a.f
	}
	if a.rank == 1 {
		m.Rows, m.Cols = a.rows, 1
		if left {
			m.Rows, m.Cols = 1, a.rows
		}
	}
	return m
}
