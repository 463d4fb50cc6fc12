package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// The inverse tests compare Lapack's recursive Dtrtri, Dlauum and Dpotri
// with gonum's blocked ones (run on gonum's own BLAS, so the reference
// shares no code with what it checks), with the leaf made small so that
// the recursion runs several levels on small matrices, on orders that are
// not multiples of the leaf or of the kernels' blocks, with lda > n, both
// triangles and both kinds of diagonal.
//
// Tolerances. A computed triangular inverse X̂ of T satisfies
// |X̂ − X| ≤ c·n·ε·|X|·|T|·|X| (Du Croz & Higham 1992) whichever order the
// products are formed in, so two such inverses differ by at most about
// 2c·n·ε·κ(T)·max|X|, κ(T) = ‖T‖·‖X‖ in the ∞-norm; the tests allow
// 8(n+2)·ε·κ(T)·max|X|, c = 4. Dlauum is a product, within
// 4(n+2)·ε·max(|U|·|U|ᵀ) as in the BLAS tests. Dpotri is both: its error is
// bounded by 8(n+2)·ε·κ(A)·max|A⁻¹| with κ(A) = ‖A‖·‖A⁻¹‖.

var inverseSizes = []int{1, 2, 3, 5, 8, 9, 17, 31, 40, 67, 130, 203}

// randTri returns a random triangular matrix of order n in the uplo triangle
// of an n×lda slice (the other triangle is garbage that must not be read):
// a Cholesky factor of XXᵀ + n·I for NonUnit (moderately conditioned, as
// the factors Dpotri inverts), off-diagonals uniform on ±2/n for Unit.
func randTri(r *rand.Rand, n, lda int, upper, unit bool) []float64 {
	a := make([]float64, (n-1)*lda+n)
	for i := range a {
		a[i] = 1e300
	}
	if unit {
		for i := range n {
			for j := range n {
				if (j > i) == upper && i != j {
					a[i*lda+j] = (4*r.Float64() - 2) / float64(n)
				}
			}
			a[i*lda+i] = math.NaN() // not to be read
		}
		return a
	}
	s := spdSlice(r, n, lda)
	ul := blas.Lower
	if upper {
		ul = blas.Upper
	}
	if !(gonumlapack.Implementation{}).Dpotrf(ul, n, s, lda) {
		panic("not positive definite")
	}
	for i := range n {
		for j := range n {
			if (j > i) == upper || i == j {
				a[i*lda+j] = s[i*lda+j]
			}
		}
	}
	return a
}

// spdSlice is XXᵀ + n·I, X n×n uniform on ±1, in an n×lda slice.
func spdSlice(r *rand.Rand, n, lda int) []float64 {
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
	return a
}

// triNorm is the ∞-norm of the uplo triangle of a, with ones on the
// diagonal if unit, and its largest entry.
func triNorm(n int, a []float64, lda int, upper, unit bool) (norm, maxAbs float64) {
	for i := range n {
		row := 0.0
		for j := range n {
			if (j > i) != upper && i != j {
				continue
			}
			v := math.Abs(a[i*lda+j])
			if i == j && unit {
				v = 1
			}
			row += v
			maxAbs = max(maxAbs, v)
		}
		norm = max(norm, row)
	}
	return norm, maxAbs
}

// symNorm is the ∞-norm of the symmetric matrix stored in the uplo
// triangle of a, and its largest entry.
func symNorm(n int, a []float64, lda int, upper bool) (norm, maxAbs float64) {
	for i := range n {
		row := 0.0
		for j := range n {
			ii, jj := i, j
			if (jj < ii) == upper {
				ii, jj = jj, ii
			}
			v := math.Abs(a[ii*lda+jj])
			row += v
			maxAbs = max(maxAbs, v)
		}
		norm = max(norm, row)
	}
	return norm, maxAbs
}

// withGonum runs f with gonum's own BLAS installed.
func withGonum(f func()) {
	blas64.Use(ref)
	defer blas64.Use(Implementation{})
	f()
}

// triangle returns the uplo triangle (with the diagonal) of a, the rest
// zero, so that the garbage outside it is not compared.
func triangle(n int, a []float64, lda int, upper bool) []float64 {
	t := make([]float64, n*n)
	for i := range n {
		for j := range n {
			if (j > i) == upper || i == j {
				t[i*n+j] = a[i*lda+j]
			}
		}
	}
	return t
}

func TestDtrtri(t *testing.T) {
	defer func(l int) { potriLeaf = l }(potriLeaf)
	potriLeaf = 4
	r := rand.New(rand.NewPCG(21, 22))
	refL := gonumlapack.Implementation{}
	for _, n := range inverseSizes {
		for _, upper := range []bool{true, false} {
			for _, unit := range []bool{false, true} {
				ul, d := blas.Lower, blas.NonUnit
				if upper {
					ul = blas.Upper
				}
				if unit {
					d = blas.Unit
				}
				lda := n + r.IntN(3)
				a := randTri(r, n, lda, upper, unit)
				tn, _ := triNorm(n, a, lda, upper, unit)
				want := append([]float64(nil), a...)
				withGonum(func() {
					if !refL.Dtrtri(ul, d, n, want, lda) {
						t.Fatal("gonum: singular")
					}
				})
				got := append([]float64(nil), a...)
				if !(Lapack{}).Dtrtri(ul, d, n, got, lda) {
					t.Fatalf("Dtrtri(%c,%c,n=%d): singular", ul, d, n)
				}
				xn, xmax := triNorm(n, want, lda, upper, unit)
				tol := 8 * float64(n+2) * eps * tn * xn * xmax
				what := fmt.Sprintf("Dtrtri(%c,%c,n=%d,lda=%d)", ul, d, n, lda)
				g, w := triangle(n, got, lda, upper), triangle(n, want, lda, upper)
				if unit { // the diagonal is not referenced: compare the rest
					for i := range n {
						g[i*n+i], w[i*n+i] = 0, 0
					}
				}
				check(t, what, g, w, tol)
				// The other triangle is untouched.
				for i := range n {
					for j := range n {
						if (j > i) != upper && i != j && got[i*lda+j] != 1e300 {
							t.Fatalf("%s wrote outside its triangle at (%d,%d)", what, i, j)
						}
					}
				}
			}
		}
	}
	// A zero on the diagonal: false, and a unchanged.
	n := 50
	a := randTri(r, n, n, true, false)
	a[37*n+37] = 0
	saved := append([]float64(nil), a...)
	if (Lapack{}).Dtrtri(blas.Upper, blas.NonUnit, n, a, n) {
		t.Error("Dtrtri inverted a singular triangle")
	}
	for i := range a {
		if a[i] != saved[i] && !(math.IsNaN(a[i]) && math.IsNaN(saved[i])) {
			t.Fatalf("Dtrtri of a singular triangle changed element %d", i)
		}
	}
}

func TestDlauum(t *testing.T) {
	defer func(l int) { potriLeaf = l }(potriLeaf)
	potriLeaf = 4
	r := rand.New(rand.NewPCG(23, 24))
	refL := gonumlapack.Implementation{}
	for _, n := range inverseSizes {
		for _, upper := range []bool{true, false} {
			ul := blas.Lower
			if upper {
				ul = blas.Upper
			}
			lda := n + r.IntN(3)
			a := randTri(r, n, lda, upper, false)
			_, amax := triNorm(n, a, lda, upper, false)
			want := append([]float64(nil), a...)
			withGonum(func() { refL.Dlauum(ul, n, want, lda) })
			got := append([]float64(nil), a...)
			Lapack{}.Dlauum(ul, n, got, lda)
			tol := 4 * float64(n+2) * eps * float64(n) * amax * amax
			check(t, fmt.Sprintf("Dlauum(%c,n=%d,lda=%d)", ul, n, lda), triangle(n, got, lda, upper), triangle(n, want, lda, upper), tol)
		}
	}
}

func TestDpotri(t *testing.T) {
	defer func(l int) { potriLeaf = l }(potriLeaf)
	potriLeaf = 4
	r := rand.New(rand.NewPCG(25, 26))
	refL := gonumlapack.Implementation{}
	for _, n := range inverseSizes {
		for _, upper := range []bool{true, false} {
			ul := blas.Lower
			if upper {
				ul = blas.Upper
			}
			lda := n + r.IntN(3)
			s := spdSlice(r, n, lda)
			an, _ := symNorm(n, s, lda, upper)
			if !(gonumlapack.Implementation{}).Dpotrf(ul, n, s, lda) {
				t.Fatal("not positive definite")
			}
			want := append([]float64(nil), s...)
			withGonum(func() {
				if !refL.Dpotri(ul, n, want, lda) {
					t.Fatal("gonum: singular")
				}
			})
			got := append([]float64(nil), s...)
			if !(Lapack{}).Dpotri(ul, n, got, lda) {
				t.Fatalf("Dpotri(%c,n=%d): singular", ul, n)
			}
			xn, xmax := symNorm(n, want, lda, upper)
			tol := 8 * float64(n+2) * eps * an * xn * xmax
			check(t, fmt.Sprintf("Dpotri(%c,n=%d,lda=%d)", ul, n, lda), triangle(n, got, lda, upper), triangle(n, want, lda, upper), tol)
		}
	}
}

// TestInverseRoutes checks that mat.Cholesky.InverseTo runs on Lapack's
// recursive Dpotri (gonum's Dpotri would call gonum's own Dtrtri), and that
// the inverse it returns, times A, is the identity to within
// 8(n+2)·ε·κ(A), an independent check of the whole path.
func TestInverseRoutes(t *testing.T) {
	const n = 300 // above potriLeaf, so the recursion runs
	a := spd(n, 31)
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("not positive definite")
	}
	before := trtriCalls.Load()
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	if trtriCalls.Load() == before {
		t.Fatal("mat.Cholesky.InverseTo did not call Lapack's recursive Dtrtri")
	}
	var p mat.Dense
	p.Mul(&inv, a)
	kappa := mat.Norm(a, math.Inf(1)) * mat.Norm(&inv, math.Inf(1))
	tol := 8 * float64(n+2) * eps * kappa
	for i := range n {
		for j := range n {
			want := 0.0
			if i == j {
				want = 1
			}
			if d := math.Abs(p.At(i, j) - want); !(d <= tol) {
				t.Fatalf("(A⁻¹A)[%d,%d] = %v, off by %.3g > %.3g", i, j, p.At(i, j), d, tol)
			}
		}
	}
}
