package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestDpocon compares Lapack's Dpocon with gonum's on factors of random SPD
// matrices, well and badly conditioned, both triangles, and on a factor
// whose solves overflow (where it must fall back to gonum's exactly). The
// estimates come from the same sequence of Dlacn2 steps, so they agree to
// rounding: relative 1e-9 allows for the different order of the sums.
func TestDpocon(t *testing.T) {
	before := poconCalls.Load()
	var ch mat.Cholesky
	if !ch.Factorize(spd(50, 1)) {
		t.Fatal("not positive definite")
	}
	if poconCalls.Load() == before {
		t.Fatal("mat.Cholesky.Factorize did not call Lapack's Dpocon")
	}
	refL := gonumlapack.Implementation{}
	r := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1, 2, 5, 33, 130, 400} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, ridge := range []float64{float64(n), 1e-6} {
				lda := n + r.IntN(3)
				a := make([]float64, (n-1)*lda+n)
				x := randSlice(r, n*n)
				for i := range n {
					for j := range n {
						s := 0.0
						for k := range n {
							s += x[i*n+k] * x[j*n+k]
						}
						if i == j {
							s += ridge
						}
						a[i*lda+j] = s
					}
				}
				work := make([]float64, 3*n)
				anorm := refL.Dlansy(lapack.MaxColumnSum, ul, n, a, lda, work)
				if !refL.Dpotrf(ul, n, a, lda) {
					t.Fatalf("n=%d: not positive definite", n)
				}
				iwork := make([]int, n)
				want := refL.Dpocon(ul, n, a, lda, anorm, work, iwork)
				got := Lapack{}.Dpocon(ul, n, a, lda, anorm, work, iwork)
				if !(math.Abs(got-want) <= 1e-9*want) {
					t.Errorf("Dpocon(%c, n=%d, ridge=%g) = %g, want %g", ul, n, ridge, got, want)
				}
			}
		}
	}
	// A factor with tiny pivots: U⁻¹ overflows, and Dlatrs scales it.
	n := 300
	a := make([]float64, n*n)
	for i := range n {
		a[i*n+i] = 1e-30
		for j := i + 1; j < n; j++ {
			a[i*n+j] = 1
		}
	}
	work, iwork := make([]float64, 3*n), make([]int, n)
	want := refL.Dpocon(blas.Upper, n, a, n, 1, work, iwork)
	got := Lapack{}.Dpocon(blas.Upper, n, a, n, 1, work, iwork)
	if got != want {
		t.Errorf("overflowing Dpocon = %g, want gonum's %g", got, want)
	}
}

// TestDpotrf compares Lapack's recursive Dpotrf with gonum's on random SPD
// matrices (XXᵀ + n·I, so the factors are well conditioned and agree to a
// few ulps times n), both triangles, with strides, on sizes around the
// leaf, and checks that both report an indefinite matrix.
func TestDpotrf(t *testing.T) {
	defer func(l int) { potrfLeaf = l }(potrfLeaf)
	potrfLeaf = 16
	refL := gonumlapack.Implementation{}
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{1, 15, 16, 17, 40, 130, 301} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			lda := n + r.IntN(3)
			x := randSlice(r, n*n)
			a := make([]float64, (n-1)*lda+n)
			for i := range n {
				for j := range n {
					s := 0.0
					for k := range n {
						s += x[i*n+k] * x[j*n+k]
					}
					if i == j {
						s += float64(n)
					}
					a[i*lda+j] = s
				}
			}
			want := append([]float64(nil), a...)
			got := append([]float64(nil), a...)
			if !refL.Dpotrf(ul, n, want, lda) || !(Lapack{}).Dpotrf(ul, n, got, lda) {
				t.Fatalf("n=%d: not positive definite", n)
			}
			scale := math.Sqrt(2 * float64(n)) // entries of the factor are at most about this
			check(t, fmt.Sprintf("Dpotrf(%c, n=%d, lda=%d)", ul, n, lda), got, want, 8*float64(n+2)*eps*scale)
			// Make it indefinite: a negative pivot appears past the leaf.
			bad := append([]float64(nil), a...)
			bad[(n-1)*lda+n-1] = -1
			if n > 1 && (Lapack{}).Dpotrf(ul, n, bad, lda) {
				t.Errorf("Dpotrf(%c, n=%d) accepted an indefinite matrix", ul, n)
			}
		}
	}
}

// TestDlansy: Lapack's 1-norm and ∞-norm of a symmetric matrix add the
// same terms in the same order as gonum's, so they must agree to the bit,
// for both triangles, with strides, and with a NaN (which must come out).
// The other norms are gonum's.
func TestDlansy(t *testing.T) {
	refL := gonumlapack.Implementation{}
	r := rand.New(rand.NewPCG(15, 16))
	for _, n := range []int{1, 2, 3, 7, 64, 131} {
		for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
			for _, norm := range []lapack.MatrixNorm{lapack.MaxColumnSum, lapack.MaxRowSum, lapack.MaxAbs, lapack.Frobenius} {
				for _, nan := range []bool{false, true} {
					lda := n + r.IntN(3)
					a := randSlice(r, (n-1)*lda+n)
					for i := range a {
						a[i] *= math.Exp(10 * r.Float64()) // sums that round
					}
					if nan {
						a[r.IntN(n)*lda+r.IntN(n)] = math.NaN()
					}
					work := make([]float64, n)
					want := refL.Dlansy(norm, ul, n, a, lda, work)
					got := Lapack{}.Dlansy(norm, ul, n, a, lda, work)
					if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
						t.Errorf("Dlansy(%c, %c, n=%d, lda=%d) = %v, want gonum's %v", norm, ul, n, lda, got, want)
					}
				}
			}
		}
	}
}
