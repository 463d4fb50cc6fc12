package core

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/linalg"
)

// The linear-algebra builtins on values that depend on model parameters:
// each is one matrix operation on the tape (runtime/ad), so gradients flow
// through it exactly; the values are those the data builtins give.

// adOperand reads a number, vector (a column) or matrix, on the tape or
// data, as an operand of a tape operation; t is its tape, if it is on one.
func adOperand(v eval.Value) (m ad.Matrix, t *ad.Tape, ok bool) {
	switch v := v.(type) {
	case eval.Num:
		return ad.Matrix{Rows: 1, Cols: 1, F: []float64{float64(v)}}, nil, true
	case *eval.Vec:
		return ad.Matrix{Rows: len(v.Data), Cols: 1, F: v.Data}, nil, true
	case *eval.Mat:
		r, c := v.Dims()
		return ad.Matrix{Rows: r, Cols: c, F: linalg.RowMajor(v.M)}, nil, true
	case *eval.ADNum:
		return ad.Matrix{Rows: 1, Cols: 1, Vs: []ad.Var{v.V}}, v.T, true
	case *eval.ADVec:
		return ad.Matrix{Rows: len(v.Vs), Cols: 1, Vs: v.Vs}, v.T, true
	case *eval.ADMat:
		return ad.Matrix{Rows: v.Rows, Cols: v.Cols, Vs: v.Vs}, v.T, true
	}
	return ad.Matrix{}, nil, false
}

// ADSquare reads a square matrix on the tape (a number is 1×1).
func ADSquare(a *eval.Args, name string) (*ad.Tape, []ad.Var, int, error) {
	v := a.Value(name)
	m, t, ok := adOperand(v)
	switch {
	case !ok || isVector(v):
		return nil, nil, 0, a.Errorf(name, "%s must be a square matrix, got %s", name, eval.Describe(v))
	case m.Rows != m.Cols:
		return nil, nil, 0, a.Errorf(name, "%s must be a square matrix, got %d×%d", name, m.Rows, m.Cols)
	case m.Vs == nil:
		// Callers come here for a value on the tape only.
		return nil, nil, 0, a.Errorf(name, "%s must depend on model parameters here", name)
	}
	return t, m.Vs, m.Rows, nil
}

func isVector(v eval.Value) bool {
	switch v.(type) {
	case *eval.Vec, *eval.ADVec:
		return true
	}
	return false
}

// adMat wraps n·m result nodes: a vector when like is one.
func adMat(t *ad.Tape, vs []ad.Var, rows, cols int, like eval.Value) eval.Value {
	if isVector(like) {
		return &eval.ADVec{T: t, Vs: vs}
	}
	return &eval.ADMat{T: t, Rows: rows, Cols: cols, Vs: vs}
}

func adScalar(f func(t *ad.Tape, vs []ad.Var, n int) ad.Var) func(a *eval.Args) (eval.Value, error) {
	return func(a *eval.Args) (eval.Value, error) {
		t, vs, n, err := ADSquare(a, "A")
		if err != nil {
			return nil, err
		}
		return &eval.ADNum{T: t, V: f(t, vs, n)}, nil
	}
}

var (
	adTrace  = adScalar(func(t *ad.Tape, vs []ad.Var, n int) ad.Var { return t.Trace(vs, n) })
	adDet    = adScalar(func(t *ad.Tape, vs []ad.Var, n int) ad.Var { return t.Det(vs, n) })
	adLogDet = adScalar(func(t *ad.Tape, vs []ad.Var, n int) ad.Var { return t.LogDet(vs, n) })
)

func adInv(a *eval.Args) (eval.Value, error) {
	t, vs, n, err := ADSquare(a, "A")
	if err != nil {
		return nil, err
	}
	id := make([]float64, n*n)
	for i := 0; i < n; i++ {
		id[i*n+i] = 1
	}
	x, ok := t.Solve(ad.Matrix{Rows: n, Cols: n, Vs: vs}, ad.Matrix{Rows: n, Cols: n, F: id})
	if !ok {
		return nil, a.Errorf("A", "%s", singular)
	}
	return &eval.ADMat{T: t, Rows: n, Cols: n, Vs: x}, nil
}

func adSolve(a *eval.Args) (eval.Value, error) {
	am, t, ok := adOperand(a.Value("A"))
	if !ok || am.Rows != am.Cols || isVector(a.Value("A")) {
		return nil, a.Errorf("A", "A must be a square matrix, got %s", eval.Describe(a.Value("A")))
	}
	bm, tb, ok := adOperand(a.Value("b"))
	if !ok {
		return nil, a.Errorf("b", "b must be a vector or a matrix, got %s", eval.Describe(a.Value("b")))
	}
	if bm.Rows != am.Rows {
		return nil, a.Errorf("b", "b has %d rows but A is %d×%d", bm.Rows, am.Rows, am.Rows)
	}
	if t == nil {
		t = tb
	}
	x, ok := t.Solve(am, bm)
	if !ok {
		return nil, a.Errorf("A", "%s", singular)
	}
	return adMat(t, x, bm.Rows, bm.Cols, a.Value("b")), nil
}

func adChol(a *eval.Args) (eval.Value, error) {
	l, err := CholOnTape(a, "A")
	if err != nil {
		return nil, err
	}
	return l, nil
}

// CholOnTape is the Cholesky factor of argument name, a symmetric positive
// definite matrix on the tape.
func CholOnTape(a *eval.Args, name string) (*eval.ADMat, error) {
	t, vs, n, err := ADSquare(a, name)
	if err != nil {
		return nil, err
	}
	// The symmetry check is a guard: a replay makes it again at the new
	// values (and walks, to report, when it fails), so it does not stop
	// the model from replaying.
	var pairs []ad.Var // (lower, upper) element pairs
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			pairs = append(pairs, vs[i*n+j], vs[j*n+i])
		}
	}
	asym := func(x, y float64) bool {
		return math.Abs(x-y) > 1e-10*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
	}
	symmetric := func(x []float64) bool {
		for k := 0; k < len(x); k += 2 {
			if asym(x[k], x[k+1]) {
				return false
			}
		}
		return true
	}
	if len(pairs) > 0 && !t.Guard(pairs, symmetric) {
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				if x, y := t.Peek(vs[i*n+j]), t.Peek(vs[j*n+i]); asym(x, y) {
					return nil, a.Errorf(name, "%s is not symmetric: %s[%d, %d] = %s but %s[%d, %d] = %s", name, name, i+1, j+1, eval.FormatNumber(x), name, j+1, i+1, eval.FormatNumber(y))
				}
			}
		}
	}
	l, ok := t.Cholesky(vs, n)
	if !ok {
		return nil, a.Errorf(name, "%s is not positive definite at these parameter values; a kernel matrix usually needs a ridge, A + eps * eye(n)", name)
	}
	return &eval.ADMat{T: t, Rows: n, Cols: n, Vs: l}, nil
}

// adDiag is diag(x) on the tape: a vector's diagonal matrix (its zeros one
// shared input node) or a matrix's diagonal (its nodes).
func adDiag(a *eval.Args) (eval.Value, error) {
	switch v := a.Value("x").(type) {
	case *eval.ADVec:
		n := len(v.Vs)
		if n == 0 {
			return nil, a.Errorf("x", "x is empty")
		}
		if err := a.CheckDense(n, n, "the diagonal matrix", "use a smaller vector"); err != nil {
			return nil, err
		}
		zero := v.T.Input(0)
		vs := make([]ad.Var, n*n)
		for i := range vs {
			vs[i] = zero
		}
		for i, x := range v.Vs {
			vs[i*n+i] = x
		}
		return &eval.ADMat{T: v.T, Rows: n, Cols: n, Vs: vs}, nil
	case *eval.ADMat:
		out := make([]ad.Var, min(v.Rows, v.Cols))
		for i := range out {
			out[i] = v.Vs[i*v.Cols+i]
		}
		return &eval.ADVec{T: v.T, Vs: out}, nil
	}
	return nil, a.Errorf("x", "x must be a vector or a matrix, got %s", eval.Describe(a.Value("x")))
}

// adOuter is outer(a, b) = a bᵀ as one product of an n×1 and a 1×m matrix.
func adOuter(a *eval.Args) (eval.Value, error) {
	x, tx, okx := adOperand(a.Value("a"))
	y, ty, oky := adOperand(a.Value("b"))
	if !okx || !oky || x.Cols != 1 || y.Cols != 1 || x.Rows == 0 || y.Rows == 0 {
		return nil, a.Fail("outer needs two non-empty vectors, got %s and %s", eval.Describe(a.Value("a")), eval.Describe(a.Value("b")))
	}
	if err := a.CheckDense(x.Rows, y.Rows, "the outer product", "use smaller vectors"); err != nil {
		return nil, err
	}
	t := tx
	if t == nil {
		t = ty
	}
	y.Rows, y.Cols = 1, y.Rows
	return &eval.ADMat{T: t, Rows: x.Rows, Cols: y.Cols, Vs: t.MatMul(x, y)}, nil
}

// adTranspose permutes a matrix's nodes; a vector becomes a 1×n matrix.
func adTranspose(v eval.Value) eval.Value {
	switch v := v.(type) {
	case *eval.ADVec:
		return &eval.ADMat{T: v.T, Rows: 1, Cols: len(v.Vs), Vs: v.Vs}
	case *eval.ADMat:
		vs := make([]ad.Var, len(v.Vs))
		for i := 0; i < v.Rows; i++ {
			for j := 0; j < v.Cols; j++ {
				vs[j*v.Rows+i] = v.Vs[i*v.Cols+j]
			}
		}
		return &eval.ADMat{T: v.T, Rows: v.Cols, Cols: v.Rows, Vs: vs}
	}
	return nil
}
