package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/kml-lang/kml/runtime/rng"
)

// TestPotriMatchesLAPACK checks the factor, solve and inverse that the
// marginal likelihood uses on random positive definite matrices: the solve
// against Potrs and by its residual, the inverse (blas3's recursive
// Dpotri, which lapack64 routes to) against gonum's own Dpotri, which
// shares none of its blocking, and by the residual C·C⁻¹ − I.
func TestPotriMatchesLAPACK(t *testing.T) {
	r := rng.New(9, testStream)
	for _, n := range []int{1, 2, 7, 64, 65, 130, 201} {
		// C = GGᵀ/n + I.
		g := make([]float64, n*n)
		for i := range g {
			g[i] = r.NormFloat64()
		}
		c := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += g[i*n+k] * g[j*n+k]
				}
				c[i*n+j] = s / float64(n)
			}
			c[i*n+i]++
		}
		ref := append([]float64(nil), c...)
		orig := append([]float64(nil), c...)
		tr, ok := potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: c})
		tref, ok2 := lapack64.Potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: ref})
		if !ok || !ok2 {
			t.Fatal("not positive definite")
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if d := math.Abs(c[i*n+j] - ref[i*n+j]); d > 1e-12*(1+math.Abs(ref[i*n+j])) {
					t.Fatalf("n = %d: U[%d,%d] = %.15g, LAPACK %.15g", n, i, j, c[i*n+j], ref[i*n+j])
				}
			}
		}
		// solveUpper against LAPACK's Potrs, and its residual ‖Cx − b‖
		// on the original matrix (orig: its upper triangle).
		b := make([]float64, n)
		for i := range b {
			b[i] = r.NormFloat64()
		}
		x := append([]float64(nil), b...)
		xref := append([]float64(nil), b...)
		solveUpper(tr, x)
		lapack64.Potrs(tref, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: xref})
		for i := range x {
			if d := math.Abs(x[i] - xref[i]); d > 1e-12*(1+math.Abs(xref[i])) {
				t.Fatalf("n = %d: solve x[%d] = %.15g, Potrs %.15g", n, i, x[i], xref[i])
			}
			var cx float64
			for j := range x {
				cx += orig[min(i, j)*n+max(i, j)] * x[j]
			}
			if d := math.Abs(cx - b[i]); d > 1e-10*(1+math.Abs(b[i])) {
				t.Fatalf("n = %d: (Cx)[%d] = %.15g, b %.15g", n, i, cx, b[i])
			}
		}
		if !potri(tr) {
			t.Fatal("potri failed")
		}
		gonumlapack.Implementation{}.Dpotri(blas.Upper, n, ref, n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for k := 0; k < n; k++ {
					s += orig[min(i, k)*n+max(i, k)] * c[min(k, j)*n+max(k, j)]
				}
				if i == j {
					s--
				}
				if math.Abs(s) > 1e-10 {
					t.Fatalf("n = %d: (C·C⁻¹ − I)[%d,%d] = %.3g", n, i, j, s)
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if d := math.Abs(c[i*n+j] - ref[i*n+j]); d > 1e-12*(1+math.Abs(ref[i*n+j])) {
					t.Fatalf("n = %d: C⁻¹[%d,%d] = %.15g, LAPACK %.15g", n, i, j, c[i*n+j], ref[i*n+j])
				}
			}
		}
	}
}

func TestPotrfNotPositiveDefinite(t *testing.T) {
	for _, n := range []int{3, 150} {
		c := make([]float64, n*n)
		for i := 0; i < n; i++ {
			c[i*n+i] = 1
		}
		c[(n-1)*n+n-1] = -1 // the last pivot, in the last leaf
		if _, ok := potrf(blas64.Symmetric{N: n, Stride: n, Uplo: blas.Upper, Data: c}); ok {
			t.Fatalf("n = %d: factored a matrix with a negative eigenvalue", n)
		}
	}
}
