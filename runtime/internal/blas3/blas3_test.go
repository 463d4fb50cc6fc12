package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// The tolerance. Each element of a product is a sum of k terms, which the
// reference and these kernels add in different orders, with and without
// fused multiply-adds; each result is within γ_k·(|α|·|A|·|B| + |β|·|C|)
// of the exact one, γ_k ≈ k·ε (Higham, Accuracy and Stability, §3.5), so
// the two differ by at most about 2k·ε times that bound. The tests allow
// 4(k+2)·ε times it, elementwise: tight enough that any wrong term, any
// term dropped or counted twice fails.
const eps = 0x1p-52

// ref is gonum's reference implementation.
var ref = gonum.Implementation{}

var sizes = []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 24, 25, 31, 33, 48, 63, 64, 65, 97, 129, 150, 200}

func pick(r *rand.Rand) int { return sizes[r.IntN(len(sizes))] }

func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 2*r.Float64() - 1
	}
	return s
}

// configs runs f under every vector level this machine has, each with the
// default block sizes and with small ones (so that every loop of the
// blocked algorithm runs more than once and ends in a partial block), and
// with the size thresholds off so the kernels see every size.
func configs(t *testing.T, f func(t *testing.T)) {
	defer func(g, p, s, tr, l int) {
		minGemm, minPar, minSyrk, minTrsm, trsmLeaf = g, p, s, tr, l
	}(minGemm, minPar, minSyrk, minTrsm, trsmLeaf)
	minGemm, minSyrk, minTrsm = 0, 0, 0
	leaf := trsmLeaf
	for _, l := range cpufeat.Levels() {
		for _, small := range []bool{false, true} {
			for _, par := range []bool{false, true} {
				name := fmt.Sprintf("%v/small=%v/par=%v", l, small, par)
				t.Run(name, func(t *testing.T) {
					restore := cpufeat.Use(l)
					defer restore()
					s := current()
					saved := *s
					defer func() { *s = saved }()
					trsmLeaf = leaf
					if small { // and DTRSM by halves down to 9
						s.mc, s.kc, s.nc = 2*s.mr+1, 7, 3*s.nr+2
						trsmLeaf = 9
					}
					minPar = 1 << 62
					if par {
						minPar = 0
					}
					f(t)
				})
			}
		}
	}
}

func TestDgemm(t *testing.T) {
	configs(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		trans := []blas.Transpose{blas.NoTrans, blas.Trans}
		for it := range 120 {
			m, n, k := pick(r), pick(r), pick(r)
			tA, tB := trans[it%2], trans[it/2%2]
			ar, ac := m, k
			if tA == blas.Trans {
				ar, ac = k, m
			}
			br, bc := k, n
			if tB == blas.Trans {
				br, bc = n, k
			}
			lda, ldb, ldc := max(1, ac)+r.IntN(3), max(1, bc)+r.IntN(3), max(1, n)+r.IntN(3)
			alpha := []float64{1, -1, 0, 0.7}[r.IntN(4)]
			beta := []float64{0, 1, -0.3}[r.IntN(3)]
			a := randSlice(r, max(0, (ar-1)*lda+ac))
			b := randSlice(r, max(0, (br-1)*ldb+bc))
			c := randSlice(r, max(0, (m-1)*ldc+n))
			if beta == 0 && len(c) > 0 {
				c[r.IntN(len(c))] = math.NaN() // must not reach the result
			}
			want := append([]float64(nil), c...)
			ref.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
			got := append([]float64(nil), c...)
			Implementation{}.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
			// Bound: |α|·|op(A)|·|op(B)| + |β|·|C| ≤ |α|·k + |β| for entries in [−1, 1].
			tol := 4 * float64(k+2) * eps * (math.Abs(alpha)*float64(k) + math.Abs(beta))
			check(t, fmt.Sprintf("Dgemm(%c,%c,m=%d,n=%d,k=%d,α=%g,β=%g,ld=%d,%d,%d)", tA, tB, m, n, k, alpha, beta, lda, ldb, ldc), got, want, tol)
		}
	})
}

func TestDsyrk(t *testing.T) {
	configs(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for it := range 80 {
			n, k := pick(r), pick(r)
			if it%7 == 0 {
				n = 150 + r.IntN(200) // more than one block row
			}
			ul := []blas.Uplo{blas.Upper, blas.Lower}[it%2]
			tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/2%2]
			ar, ac := n, k
			if tA == blas.Trans {
				ar, ac = k, n
			}
			lda, ldc := max(1, ac)+r.IntN(3), max(1, n)+r.IntN(3)
			alpha := []float64{1, -1, 0, 0.7}[r.IntN(4)]
			beta := []float64{0, 1, -0.3}[r.IntN(3)]
			a := randSlice(r, max(0, (ar-1)*lda+ac))
			c := randSlice(r, max(0, (n-1)*ldc+n))
			if beta == 0 && n > 0 {
				i := r.IntN(n)
				c[i*ldc+i] = math.NaN()
			}
			want := append([]float64(nil), c...)
			ref.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, want, ldc)
			got := append([]float64(nil), c...)
			Implementation{}.Dsyrk(ul, tA, n, k, alpha, a, lda, beta, got, ldc)
			tol := 4 * float64(k+2) * eps * (math.Abs(alpha)*float64(k) + math.Abs(beta))
			check(t, fmt.Sprintf("Dsyrk(%c,%c,n=%d,k=%d,α=%g,β=%g,ld=%d,%d)", ul, tA, n, k, alpha, beta, lda, ldc), got, want, tol)
		}
	})
}

// TestDgemmt: the triangle Dgemmt computes equals that of gonum's Dgemm
// of the same operands, within the tolerance of TestDgemm, and the other
// triangle is left as it was, bit for bit (it holds a NaN, so a write
// there fails); on blas3's kernels (configs) and below minSyrk, where
// Dgemmt sums directly.
func TestDgemmt(t *testing.T) {
	run := func(t *testing.T, r *rand.Rand, its int) {
		trans := []blas.Transpose{blas.NoTrans, blas.Trans}
		for it := range its {
			n, k := pick(r), pick(r)
			if it%7 == 0 {
				n = 150 + r.IntN(200) // more than one block row
			}
			ul := []blas.Uplo{blas.Upper, blas.Lower}[it%2]
			tA, tB := trans[it/2%2], trans[it/4%2]
			ar, ac := n, k
			if tA == blas.Trans {
				ar, ac = k, n
			}
			br, bc := k, n
			if tB == blas.Trans {
				br, bc = n, k
			}
			lda, ldb, ldc := max(1, ac)+r.IntN(3), max(1, bc)+r.IntN(3), max(1, n)+r.IntN(3)
			alpha := []float64{1, -1, 0, 0.7}[r.IntN(4)]
			beta := []float64{0, 1, -0.3}[r.IntN(3)]
			a := randSlice(r, max(0, (ar-1)*lda+ac))
			b := randSlice(r, max(0, (br-1)*ldb+bc))
			c := randSlice(r, max(0, (n-1)*ldc+n))
			in := func(i, j int) bool { return (ul == blas.Upper) == (j >= i) || i == j }
			for i := range n {
				for j := range n {
					if !in(i, j) {
						c[i*ldc+j] = math.NaN()
					}
				}
			}
			want := append([]float64(nil), c...)
			if n > 0 {
				ref.Dgemm(tA, tB, n, n, k, alpha, a, lda, b, ldb, beta, want, ldc)
			}
			got := append([]float64(nil), c...)
			Dgemmt(ul, tA, tB, n, k, alpha, a, lda, b, ldb, beta, got, ldc)
			name := fmt.Sprintf("Dgemmt(%c,%c,%c,n=%d,k=%d,α=%g,β=%g,ld=%d,%d,%d)", ul, tA, tB, n, k, alpha, beta, lda, ldb, ldc)
			for i := range n {
				for j := range n {
					if !in(i, j) {
						if g := got[i*ldc+j]; !math.IsNaN(g) {
							t.Errorf("%s: C[%d,%d] = %g outside the triangle", name, i, j, g)
						}
						got[i*ldc+j], want[i*ldc+j] = 0, 0
					}
				}
			}
			tol := 4 * float64(k+2) * eps * (math.Abs(alpha)*float64(k) + math.Abs(beta))
			check(t, name, got, want, tol)
		}
	}
	configs(t, func(t *testing.T) { run(t, rand.New(rand.NewPCG(11, 12)), 48) })
	t.Run("direct", func(t *testing.T) { run(t, rand.New(rand.NewPCG(13, 14)), 32) })
}

// triangular returns a k×k triangular matrix with leading dimension lda:
// off-diagonal entries in [−1, 1]/k and a diagonal in [1, 2], so its
// condition number is small and the solutions of both codes agree to
// rounding; the other triangle holds garbage, and with unit the diagonal
// is NaN, which must not be read.
func triangular(r *rand.Rand, k, lda int, upper, unit bool) []float64 {
	a := make([]float64, max(0, (k-1)*lda+k))
	for i := range k {
		for j := range k {
			v := 1e300 // the other triangle: must not be read
			switch {
			case i == j && unit:
				v = math.NaN()
			case i == j:
				v = 1 + r.Float64()
			case (j > i) == upper:
				v = (2*r.Float64() - 1) / float64(k)
			}
			a[i*lda+j] = v
		}
	}
	return a
}

func TestDtrsm(t *testing.T) {
	configs(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for it := range 160 {
			m, n := pick(r), pick(r)
			if it%9 == 0 {
				m = 130 + r.IntN(100) // more than two diagonal blocks
			}
			if it%9 == 4 {
				n = 130 + r.IntN(100)
			}
			s := []blas.Side{blas.Left, blas.Right}[it%2]
			ul := []blas.Uplo{blas.Upper, blas.Lower}[it/2%2]
			tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/4%2]
			d := []blas.Diag{blas.NonUnit, blas.Unit}[it/8%2]
			k := m
			if s == blas.Right {
				k = n
			}
			lda, ldb := max(1, k)+r.IntN(3), max(1, n)+r.IntN(3)
			alpha := []float64{1, -1, 0, 0.7}[r.IntN(4)]
			a := triangular(r, k, lda, ul == blas.Upper, d == blas.Unit)
			b := randSlice(r, max(0, (m-1)*ldb+n))
			if alpha == 0 && len(b) > 0 {
				b[r.IntN(len(b))] = math.NaN() // α = 0 sets B to zero
			}
			want := append([]float64(nil), b...)
			ref.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, want, ldb)
			got := append([]float64(nil), b...)
			Implementation{}.Dtrsm(s, ul, tA, d, m, n, alpha, a, lda, got, ldb)
			// The solutions are of order one; with inverted diagonal blocks
			// the rounding grows with k as in a product.
			tol := 8 * float64(k+2) * eps * 4
			check(t, fmt.Sprintf("Dtrsm(%c,%c,%c,%c,m=%d,n=%d,α=%g,ld=%d,%d)", s, ul, tA, d, m, n, alpha, lda, ldb), got, want, tol)
		}
	})
}

func TestDtrmm(t *testing.T) {
	configs(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for it := range 160 {
			m, n := pick(r), pick(r)
			if it%9 == 0 {
				m = 130 + r.IntN(100) // more than two diagonal blocks
			}
			if it%9 == 4 {
				n = 130 + r.IntN(100)
			}
			s := []blas.Side{blas.Left, blas.Right}[it%2]
			ul := []blas.Uplo{blas.Upper, blas.Lower}[it/2%2]
			tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/4%2]
			d := []blas.Diag{blas.NonUnit, blas.Unit}[it/8%2]
			k := m
			if s == blas.Right {
				k = n
			}
			lda, ldb := max(1, k)+r.IntN(3), max(1, n)+r.IntN(3)
			alpha := []float64{1, -1, 0, 0.7}[r.IntN(4)]
			a := triangular(r, k, lda, ul == blas.Upper, d == blas.Unit)
			b := randSlice(r, max(0, (m-1)*ldb+n))
			if alpha == 0 && len(b) > 0 {
				b[r.IntN(len(b))] = math.NaN() // α = 0 sets B to zero
			}
			want := append([]float64(nil), b...)
			ref.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, want, ldb)
			got := append([]float64(nil), b...)
			Implementation{}.Dtrmm(s, ul, tA, d, m, n, alpha, a, lda, got, ldb)
			// Each result is a sum of at most k products of entries at most
			// 2 (the diagonal) and 1/k by ones at most 1: bounded by 3.
			tol := 4 * float64(k+2) * eps * 3
			check(t, fmt.Sprintf("Dtrmm(%c,%c,%c,%c,m=%d,n=%d,α=%g,ld=%d,%d)", s, ul, tA, d, m, n, alpha, lda, ldb), got, want, tol)
		}
	})
}

// TestDtrsv compares Dtrsv with gonum's in every uplo/trans/diag case, on
// the well-conditioned triangles of TestDtrsm, with unit stride (the
// vector path) and stride 2 (delegated).
func TestDtrsv(t *testing.T) {
	defer func(m int) { minTrsv = m }(minTrsv)
	minTrsv = 0
	r := rand.New(rand.NewPCG(9, 10))
	for it := range 200 {
		n := pick(r)
		if it%5 == 0 {
			n = 100 + r.IntN(300)
		}
		ul := []blas.Uplo{blas.Upper, blas.Lower}[it%2]
		tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/2%2]
		d := []blas.Diag{blas.NonUnit, blas.Unit}[it/4%2]
		inc := []int{1, 1, 1, 2}[it/8%4]
		lda := max(1, n) + r.IntN(3)
		a := triangular(r, n, lda, ul == blas.Upper, d == blas.Unit)
		x := randSlice(r, max(0, (n-1)*inc+1))
		want := append([]float64(nil), x...)
		ref.Dtrsv(ul, tA, d, n, a, lda, want, inc)
		got := append([]float64(nil), x...)
		Implementation{}.Dtrsv(ul, tA, d, n, a, lda, got, inc)
		check(t, fmt.Sprintf("Dtrsv(%c,%c,%c,n=%d,lda=%d,inc=%d)", ul, tA, d, n, lda, inc), got, want, 8*float64(n+2)*eps*4)
	}
}

func check(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		g, w := got[i], want[i]
		if math.IsNaN(w) && math.IsNaN(g) {
			continue
		}
		if !(math.Abs(g-w) <= tol) {
			t.Fatalf("%s: element %d = %v, want %v (|diff| %.3g > tol %.3g)", what, i, g, w, math.Abs(g-w), tol)
		}
	}
}
