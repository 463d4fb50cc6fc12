package core

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Linear algebra through gonum: what a user needs to write a kernel
// estimator by hand. On data the builtins compute with gonum; inside a
// model, on values that depend on parameters, with the differentiable
// tape operations of linalg_ad.go.
func registerLinalg(reg *eval.Registry) {
	for _, b := range []struct {
		spec, doc string
		f         func(a *eval.Args) (eval.Value, error)
		onTape    func(a *eval.Args) (eval.Value, error) // for arguments on the tape
	}{
		{"eye(n)", "The n×n identity matrix.", eyeBuiltin, nil},
		{"diag(x)", "For a vector, the square matrix with x on its diagonal; for a matrix, its diagonal as a vector.", diagBuiltin, adDiag},
		{"outer(a, b)", "The matrix a bᵀ of two vectors: element (i, j) is a[i]·b[j].", outerBuiltin, adOuter},
		{"trace(A)", "The sum of the diagonal of a square matrix.", func(a *eval.Args) (eval.Value, error) {
			m, err := SquareArg(a, "A")
			if err != nil {
				return nil, err
			}
			return eval.Num(mat.Trace(m)), nil
		}, adTrace},
		{"det(A)", "The determinant of a square matrix (by LU); an error when A is numerically singular (its reciprocal condition number, estimated in the ∞-norm, below n·ε), where the determinant is rounding noise.", func(a *eval.Args) (eval.Value, error) {
			ld, sign, err := luLogDet(a)
			if err != nil {
				return nil, err
			}
			return eval.Num(sign * math.Exp(ld)), nil
		}, adDet},
		{"logdet(A)", "log |det A| of a square matrix (by LU), without the overflow of log(det(A)); an error when A is numerically singular, as for det.", func(a *eval.Args) (eval.Value, error) {
			ld, _, err := luLogDet(a)
			if err != nil {
				return nil, err
			}
			return eval.Num(ld), nil
		}, adLogDet},
		{"inv(A)", "The inverse of a square matrix; an error when it is singular. solve(A, b) is cheaper and more accurate than inv(A) @ b.", invBuiltin, adInv},
		{"solve(A, b)", "The x with A x = b, for a square matrix A and a vector or matrix b (by LU; an error when A is singular; a triangular A, such as a Cholesky factor, by substitution).", solveBuiltin, adSolve},
		{"chol(A)", "The lower-triangular Cholesky factor L of a symmetric positive definite matrix, A = L Lᵀ; an error saying which of the two A is not otherwise.", cholBuiltin, adChol},
	} {
		f, onTape := b.f, b.onTape
		if onTape == nil {
			reg.Register(b.spec, b.doc, f)
			continue
		}
		reg.Register(b.spec, b.doc, func(a *eval.Args) (eval.Value, error) {
			if a.AnyAD() {
				return onTape(a)
			}
			return f(a)
		}).AD = true
	}
}

// SquareArg reads a finite square matrix.
func SquareArg(a *eval.Args, name string) (*mat.Dense, error) {
	m, err := squareArg(a, name)
	if err != nil {
		return nil, err
	}
	if err := finiteMatrix(m); err != nil {
		return nil, a.Errorf(name, "%s %v", name, err)
	}
	return m, nil
}

// squareArg is SquareArg without the check for NaN and infinities, for a
// builtin that makes it in its own pass over the matrix (chol).
func squareArg(a *eval.Args, name string) (*mat.Dense, error) {
	v := a.Value(name)
	m, ok := v.(*eval.Mat)
	if !ok {
		if n, isNum := v.(eval.Num); isNum {
			return mat.NewDense(1, 1, []float64{float64(n)}), nil
		}
		return nil, a.Errorf(name, "%s must be a square matrix, got %s", name, eval.Describe(v))
	}
	r, c := m.Dims()
	if r != c {
		return nil, a.Errorf(name, "%s must be a square matrix, got %d×%d", name, r, c)
	}
	return m.M, nil
}

// finiteMatrix reports the first non-finite element of m in row order. It
// reads the rows in place (x − x is NaN exactly for NaN and ±Inf): At's
// bounds checks per element cost as much as a third of a chol at n = 500.
func finiteMatrix(m *mat.Dense) error {
	raw := m.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if x-x != 0 {
				return fmt.Errorf("has a non-finite element %v at [%d, %d]", x, i+1, j+1)
			}
		}
	}
	return nil
}

func eyeBuiltin(a *eval.Args) (eval.Value, error) {
	n, err := a.PositiveInt("n")
	if err != nil {
		return nil, err
	}
	if err := a.CheckDense(n, n, "the identity matrix", "use a smaller n"); err != nil {
		return nil, err
	}
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return eval.NewSymMat(m), nil
}

func diagBuiltin(a *eval.Args) (eval.Value, error) {
	switch v := a.Value("x").(type) {
	case *eval.Vec:
		n := len(v.Data)
		if n == 0 {
			return nil, a.Errorf("x", "x is empty")
		}
		if err := a.CheckDense(n, n, "the diagonal matrix", "use a smaller vector"); err != nil {
			return nil, err
		}
		m := mat.NewDense(n, n, nil)
		for i, x := range v.Data {
			m.Set(i, i, x)
		}
		return eval.NewSymMat(m), nil
	case *eval.Mat:
		r, c := v.Dims()
		out := make([]float64, min(r, c))
		for i := range out {
			out[i] = v.M.At(i, i)
		}
		return &eval.Vec{Data: out}, nil
	}
	return nil, a.Errorf("x", "x must be a vector or a matrix, got %s", eval.Describe(a.Value("x")))
}

func outerBuiltin(a *eval.Args) (eval.Value, error) {
	var x, y []float64
	if err := a.Unpack("a", &x, "b", &y); err != nil {
		return nil, err
	}
	if len(x) == 0 || len(y) == 0 {
		return nil, a.Fail("outer needs two non-empty vectors, got %d and %d elements", len(x), len(y))
	}
	if err := a.CheckDense(len(x), len(y), "the outer product", "use smaller vectors"); err != nil {
		return nil, err
	}
	m := mat.NewDense(len(x), len(y), nil)
	for i, xi := range x {
		for j, yj := range y {
			m.Set(i, j, xi*yj)
		}
	}
	return eval.NewMat(m), nil
}

// luLogDet is log |det A| and the sign of det A for argument A, by LU, or
// an error when A is numerically singular: its reciprocal condition number
// (LAPACK's ∞-norm estimate, linalg.LU.RCond, as gonum's LU.Cond) below
// n·ε, ε the float64 machine epsilon. Below that the computed determinant is not the
// determinant of any nearby matrix to even one digit: [[1, 1], [1, 1 + 1e-15]]
// has det 1e-15 and LU gives 1.11e-15.
func luLogDet(a *eval.Args) (logAbs, sign float64, err error) {
	f, err := factorLU(a)
	if err != nil {
		return 0, 0, err
	}
	if rcond := f.RCond(); !(rcond >= float64(f.N)*eps) {
		return 0, 0, a.Errorf("A", "A is singular (or nearly: its reciprocal condition number %.2g is below n·ε = %.2g), so its determinant is rounding noise; a kernel matrix usually needs a ridge, A + eps * eye(n)", rcond, float64(f.N)*eps)
	}
	logAbs, sign = f.LogDet()
	return logAbs, sign, nil
}

// factorLU is linalg.FactorLU of the square matrix A, with chol's
// messages for a matrix that is not square or not finite: the check for
// NaN and infinities rides on the factorisation's copy of A, and A is
// searched only when it fails, to say where.
func factorLU(a *eval.Args) (*linalg.LU, error) {
	m, err := squareArg(a, "A")
	if err != nil {
		return nil, err
	}
	if err := a.Step(nil); err != nil {
		return nil, err
	}
	f, ok := linalg.FactorLU(m.RawMatrix())
	if !ok {
		return nil, a.Errorf("A", "A %v", finiteMatrix(m))
	}
	return f, nil
}

// eps is the float64 machine epsilon, 2⁻⁵².
const eps = 0x1p-52

// singular says what to do about a singular matrix.
const singular = "A is singular (or nearly: its condition number is too large); a kernel matrix usually needs a ridge, A + eps * eye(n)"

func invBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := squareArg(a, "A")
	if err != nil {
		return nil, err
	}
	n, _ := m.Dims()
	if err := a.CheckDense(n, n, "the inverse", "solve(A, b) gives A⁻¹b without it"); err != nil {
		return nil, err
	}
	f, err := factorLU(a)
	if err != nil {
		return nil, err
	}
	// mat.Dense.Inverse's test, as before: singular when the condition
	// number passes mat.ConditionTolerance.
	rcond := f.RCond()
	inv, ok := f.Inverse()
	if !ok || rcond == 0 || 1/rcond > mat.ConditionTolerance {
		return nil, a.Errorf("A", "%s", singular)
	}
	return eval.NewMat(mat.NewDense(n, n, inv)), nil
}

func solveBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := squareArg(a, "A")
	if err != nil {
		return nil, err
	}
	n, _ := m.Dims()
	b, err := a.Matrix("b")
	if err != nil {
		return nil, err
	}
	if r, _ := b.Dims(); r != n {
		return nil, a.Errorf("b", "b has %d rows but A is %d×%d", r, n, n)
	}
	if err := finiteMatrix(b); err != nil {
		return nil, a.Errorf("b", "b %v", err)
	}
	_, k := b.Dims()
	if k > 1 {
		if err := a.CheckDense(n, k, "the solution", ""); err != nil {
			return nil, err
		}
	}
	x := mat.DenseCopyOf(b)
	if tri, ok := triangle(m); ok {
		// By substitution, as on the tape (runtime/ad's Solve): a
		// triangular A is singular when its diagonal has a zero. Only
		// the triangle can hold a NaN or an infinity (triangle found the
		// rest zero), so only it is searched, and A whole only to say
		// where.
		if !finiteTriangle(tri) {
			return nil, a.Errorf("A", "A %v", finiteMatrix(m))
		}
		for i := range n {
			if m.At(i, i) == 0 {
				return nil, a.Errorf("A", "%s", singular)
			}
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, tri, x.RawMatrix())
	} else {
		f, err := factorLU(a)
		if err != nil {
			return nil, err
		}
		// mat.LU.SolveTo's test, as before.
		if cond := 1 / f.RCond(); cond > 1/(2.2e-16) || math.IsInf(cond, 0) {
			return nil, a.Errorf("A", "%s", singular)
		}
		f.Solve(x.RawMatrix())
	}
	if _, isVec := a.Value("b").(*eval.Vec); isVec {
		return &eval.Vec{Data: x.RawMatrix().Data}, nil
	}
	return eval.NewMat(x), nil
}

// triangle returns the square m as a blas64.Triangular when all its
// nonzeros are on and below the diagonal or on and above it. A full
// matrix costs a few elements: each scan stops at its first nonzero.
func triangle(m *mat.Dense) (blas64.Triangular, bool) {
	raw := m.RawMatrix()
	n := raw.Rows
	zero := func(lower bool) bool {
		for i := range n {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			part := row[i+1:]
			if lower {
				part = row[:i]
			}
			for _, x := range part {
				if x != 0 {
					return false
				}
			}
		}
		return true
	}
	t := blas64.Triangular{N: n, Stride: raw.Stride, Data: raw.Data, Diag: blas.NonUnit}
	switch {
	case zero(false):
		t.Uplo = blas.Lower
	case zero(true):
		t.Uplo = blas.Upper
	default:
		return t, false
	}
	return t, true
}

// finiteTriangle reports whether every element of t's triangle is
// finite (x − x is NaN exactly for NaN and ±Inf).
func finiteTriangle(t blas64.Triangular) bool {
	for i := range t.N {
		row := t.Data[i*t.Stride : i*t.Stride+t.N]
		part := row[:i+1]
		if t.Uplo == blas.Upper {
			part = row[i:]
		}
		for _, x := range part {
			if x-x != 0 {
				return false
			}
		}
	}
	return true
}

// symTol is the relative tolerance of chol's symmetry check.
const symTol = 1e-10

// cholBuiltin factors A = L Lᵀ with one n² buffer, the result, which is
// never cleared first (the passes below write every element, the zeros
// above the diagonal included): A is checked for NaN, infinities and
// symmetry and its lower triangle copied into the result in one pass
// (linalg.SymLower: tiled, on every core), and LAPACK's potrf (blas3's)
// factors it in place as the lower triangle of a row-major matrix, which
// is the layout the value needs, so nothing is transposed or copied again.
// When A is a value marked exactly symmetric (eval.Mat.Symmetric: a Gram
// matrix, eye, sums and multiples of these), there is no check and no
// copy pass: the factorisation reads A's lower triangle itself
// (linalg.CholLowerFrom), and only when it fails is A searched for a NaN
// or an infinity, to say which failure it was. mat.Cholesky.Factorize
// would copy the triangle once more (288 MB at n = 6000, with no Ctrl-C
// check) and estimate a condition number chol does not report.
func cholBuiltin(a *eval.Args) (eval.Value, error) {
	m, err := squareArg(a, "A")
	if err != nil {
		return nil, err
	}
	n, _ := m.Dims()
	if err := a.CheckDense(n, n, "the Cholesky factor", ""); err != nil {
		return nil, err
	}
	if err := a.Step(nil); err != nil {
		return nil, err
	}
	raw := m.RawMatrix()
	var out []float64
	var ok bool
	if v, isMat := a.Value("A").(*eval.Mat); isMat && v.Symmetric() {
		out, ok = linalg.CholLowerFrom(raw)
		if !ok {
			if err := finiteMatrix(m); err != nil {
				return nil, a.Errorf("A", "A %v", err)
			}
		}
	} else {
		if out, err = symLower(a, m); err != nil {
			return nil, err
		}
		_, ok = lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Lower, Data: out})
	}
	if !ok {
		return nil, a.Errorf("A", "A is not positive definite; a kernel matrix usually needs a ridge, A + eps * eye(n)")
	}
	return eval.NewMat(mat.NewDense(n, n, out)), nil
}

// symLower is linalg.SymLower with its errors as chol reports them.
func symLower(a *eval.Args, m *mat.Dense) ([]float64, error) {
	raw := m.RawMatrix()
	switch out, i, j, err := linalg.SymLower(raw, symTol); err {
	case nil:
		return out, nil
	case linalg.ErrNotFinite:
		return nil, a.Errorf("A", "A %v", finiteMatrix(m))
	default:
		x, y := raw.Data[i*raw.Stride+j], raw.Data[j*raw.Stride+i]
		return nil, a.Errorf("A", "A is not symmetric: A[%d, %d] = %s but A[%d, %d] = %s", i+1, j+1, eval.FormatNumber(x), j+1, i+1, eval.FormatNumber(y))
	}
}
