package core_test

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestLinearAlgebra checks each builtin against an independent identity or
// closed form: A·inv(A) = I, A·solve(A, b) = b, L·Lᵀ = A with L lower
// triangular, det of a 3×3 by cofactors, logdet = log|det|, trace, diag,
// eye and outer elementwise.
func TestLinearAlgebra(t *testing.T) {
	in, _ := kmltest.Run(t, `
let A = [[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]]
let N = [[1, 2, 0], [3, -1, 4], [0, 5, 2]]
let b = [1, -2, 3]
let Ai = inv(A)
let x = solve(A, b)
let X = solve(N, [[1, 0], [0, 1], [1, 1]])
let L = chol(A)
let d = det(N)
let ld = logdet(N)
let tr = trace(N)
let dg = diag(N)
let D = diag([1, 2])
let I = eye(3)
let O = outer([1, 2], [3, 4, 5])
`)
	A := mat.NewDense(3, 3, []float64{4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2})
	N := mat.NewDense(3, 3, []float64{1, 2, 0, 3, -1, 4, 0, 5, 2})
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	var p mat.Dense
	p.Mul(A, kmltest.Lookup[*eval.Mat](t, in, "Ai").M)
	L := kmltest.Lookup[*eval.Mat](t, in, "L").M
	var llt mat.Dense
	llt.Mul(L, L.T())
	X := kmltest.Lookup[*eval.Mat](t, in, "X").M
	var nx mat.Dense
	nx.Mul(N, X)
	rhs := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1})
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	for i := 0; i < 3; i++ {
		ax := 0.0
		for j := 0; j < 3; j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			near("A·inv(A)", p.At(i, j), want)
			near("L·Lᵀ", llt.At(i, j), A.At(i, j))
			if j > i && L.At(i, j) != 0 {
				t.Errorf("chol is not lower triangular: L[%d, %d] = %v", i+1, j+1, L.At(i, j))
			}
			ax += A.At(i, j) * x[j]
		}
		near("A·solve(A, b)", ax, []float64{1, -2, 3}[i])
		for j := 0; j < 2; j++ {
			near("N·solve(N, B)", nx.At(i, j), rhs.At(i, j))
		}
	}
	// Cofactor expansion along the first row.
	det := 1*(-1*2-4*5) - 2*(3*2-4*0) + 0
	near("det", float64(kmltest.Lookup[eval.Num](t, in, "d")), float64(det))
	near("logdet", float64(kmltest.Lookup[eval.Num](t, in, "ld")), math.Log(math.Abs(float64(det))))
	near("trace", float64(kmltest.Lookup[eval.Num](t, in, "tr")), 2)
	if dg := kmltest.Lookup[*eval.Vec](t, in, "dg").Data; dg[0] != 1 || dg[1] != -1 || dg[2] != 2 {
		t.Errorf("diag(N) = %v", dg)
	}
	if D := kmltest.Lookup[*eval.Mat](t, in, "D").M; D.At(0, 0) != 1 || D.At(1, 1) != 2 || D.At(0, 1) != 0 {
		t.Errorf("diag([1, 2]) = %v", mat.Formatted(D))
	}
	if I := kmltest.Lookup[*eval.Mat](t, in, "I").M; mat.Trace(I) != 3 || mat.Sum(I) != 3 {
		t.Errorf("eye(3) = %v", mat.Formatted(I))
	}
	if O := kmltest.Lookup[*eval.Mat](t, in, "O").M; O.At(1, 2) != 10 || O.At(0, 0) != 3 {
		t.Errorf("outer = %v", mat.Formatted(O))
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"print(inv([[1, 2], [2, 4]]))", "A is singular"},
		{"print(solve([[1, 2], [2, 4]], [1, 1]))", "A is singular"},
		{"print(chol([[1, 2], [2, 1]]))", "A is not positive definite"},
		{"print(chol([[1, 2], [0, 1]]))", "A is not symmetric: A[2, 1] = 0 but A[1, 2] = 2"},
		{"print(det([[1, 2, 3]]))", "A must be a square matrix, got 1×3"},
		{"print(solve([[1, 0], [0, 1]], [1, 2, 3]))", "b has 3 rows but A is 2×2"},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.src, got, c.want)
		}
	}
}

// TestCholAcrossTiles checks chol on a 150×150 matrix, which the factor's
// transpose crosses in tiles of 64 with a part tile at the end: L equals
// gonum's lower factor (mat.Cholesky, its own copy and factorisation) to
// 1e-12, and its strict upper triangle is zero.
func TestCholAcrossTiles(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = draw(normal(0, 1), 150, seed: 31)
let y = draw(normal(0, 1), 150, seed: 32)
let A = outer(x, x) + outer(y, y) + 2 * eye(150)
let L = chol(A)
`)
	A := kmltest.Lookup[*eval.Mat](t, in, "A").M
	L := kmltest.Lookup[*eval.Mat](t, in, "L").M
	n, _ := A.Dims()
	sym := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, A.At(i, j))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		t.Fatal("gonum: not positive definite")
	}
	var want mat.TriDense
	ch.LTo(&want)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			got, w := L.At(i, j), want.At(i, j)
			if j > i && got != 0 {
				t.Fatalf("L[%d, %d] = %v above the diagonal", i+1, j+1, got)
			}
			if math.Abs(got-w) > 1e-12*math.Max(1, math.Abs(w)) {
				t.Fatalf("L[%d, %d] = %.17g, gonum %.17g", i+1, j+1, got, w)
			}
		}
	}
}

// TestDetOfSingularIsAnError: det and logdet refuse a numerically singular
// matrix (reciprocal condition below n·ε) and give, for a well-conditioned
// one, the closed form of a 2×2 and 3×3 determinant.
func TestDetOfSingularIsAnError(t *testing.T) {
	dir := t.TempDir()
	for _, src := range []string{
		"det([[1, 2], [2, 4]])",              // exactly singular
		"logdet([[1, 2], [0.5, 1 + 1e-18]])", // condition 10¹⁸, rounded to singular
		"det([[1, 1], [1, 1 + 1e-15]])",      // condition 4·10¹⁵: LU's det is 11% off
		"logdet([[1, 1], [1, 1 + 1e-15]])",   //
		"det([[1, 0], [0, 1e-18]])",          // condition 10¹⁸: the rule is about scale, not exactness
	} {
		if got := kmltest.RunIn(t, dir, "print("+src+")"); !strings.Contains(got, "A is singular (or nearly: its reciprocal condition number") {
			t.Errorf("%s: %q, want the singular error", src, got)
		}
	}
	in, _ := kmltest.Run(t, `let d2 = det([[3, 1e-6], [2, 5]])
let l2 = logdet([[3, 1e-6], [2, -5]])
let d3 = det([[2, 1, 0], [1, 3, 1], [0, 1, 4]])
let tiny = det([[1e-100, 0], [0, 1e-100]])
`)
	for _, c := range []struct {
		name string
		want float64
	}{
		{"d2", 3*5 - 1e-6*2},
		{"l2", math.Log(math.Abs(3*-5 - 1e-6*2))},
		{"d3", 2*(3*4-1*1) - 1*(1*4-1*0)},
		{"tiny", 1e-200}, // well-conditioned however small
	} {
		if got := float64(kmltest.Lookup[eval.Num](t, in, c.name)); math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%s = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSolveTriangular checks solve on data with a triangular A, which it
// solves by substitution as the tape does: L·solve(L, b) = b for a
// Cholesky factor L and its transpose (upper), with a vector and a matrix
// b; a zero on the diagonal is singular, and only that, as on the tape;
// and a NaN or an infinity in A,
// triangular or not, is reported where it is, as for inv and logdet.
func TestSolveTriangular(t *testing.T) {
	in, _ := kmltest.Run(t, `
let A = [[4, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]]
let L = chol(A)
let U = transpose(L)
let b = [1, -2, 3]
let x = solve(L, b)
let y = solve(U, b)
let Z = solve(L, [[1, 0], [0, 1], [1, 1]])
let w = solve([[2, 0], [1, 1e-20]], [2, 2])
`)
	// By substitution, whatever the condition number (LU says singular).
	if w := kmltest.Lookup[*eval.Vec](t, in, "w").Data; w[0] != 1 || w[1] != 1e20 {
		t.Errorf("solve([[2, 0], [1, 1e-20]], [2, 2]) = %v, want [1, 1e20]", w)
	}
	L := kmltest.Lookup[*eval.Mat](t, in, "L").M
	U := kmltest.Lookup[*eval.Mat](t, in, "U").M
	b := mat.NewVecDense(3, []float64{1, -2, 3})
	for _, c := range []struct {
		name string
		a    *mat.Dense
	}{{"x", L}, {"y", U}} {
		x := mat.NewVecDense(3, kmltest.Lookup[*eval.Vec](t, in, c.name).Data)
		var ax mat.VecDense
		ax.MulVec(c.a, x)
		for i := range 3 {
			if math.Abs(ax.AtVec(i)-b.AtVec(i)) > 1e-14 {
				t.Errorf("%s: A·x = %v, want %v", c.name, mat.Formatted(&ax), mat.Formatted(b))
			}
		}
	}
	var lz mat.Dense
	lz.Mul(L, kmltest.Lookup[*eval.Mat](t, in, "Z").M)
	if want := mat.NewDense(3, 2, []float64{1, 0, 0, 1, 1, 1}); !mat.EqualApprox(&lz, want, 1e-14) {
		t.Errorf("L·solve(L, B) = %v", mat.Formatted(&lz))
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"print(solve([[1, 0], [2, 0]], [1, 1]))", "A is singular"},
		{"print(solve([[1, 0], [0 / 0, 1]], [1, 1]))", "A has a non-finite element NaN at [2, 1]"},
		{"print(solve([[1, 2], [1 / 0, 1]], [1, 1]))", "A has a non-finite element +Inf at [2, 1]"},
		{"print(inv([[1, 2], [3, 0 / 0]]))", "A has a non-finite element NaN at [2, 2]"},
		{"print(logdet([[1, -1 / 0], [3, 1]]))", "A has a non-finite element -Inf at [1, 2]"},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.src, got, c.want)
		}
	}
}
