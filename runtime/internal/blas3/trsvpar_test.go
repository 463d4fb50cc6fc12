package blas3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
)

// TestDtrsvBlocked: the blocked two-goroutine Dtrsv (minTrsvPar set to 0)
// against gonum's in every uplo/trans/diag case, on orders of one block,
// of several ending in a partial block, with strides; the axpy solves
// (Uᵀ, Lᵀ) must equal the unblocked row loops to the bit, and every case
// must give the same bits with GOMAXPROCS = 1 and 2.
func TestDtrsvBlocked(t *testing.T) {
	defer func(m int) { minTrsvPar = m }(minTrsvPar)
	r := rand.New(rand.NewPCG(51, 52))
	for _, n := range []int{64, trsvBlock - 1, trsvBlock, trsvBlock + 1, 600, 777} {
		for it := range 8 {
			ul := []blas.Uplo{blas.Upper, blas.Lower}[it%2]
			tA := []blas.Transpose{blas.NoTrans, blas.Trans}[it/2%2]
			d := []blas.Diag{blas.NonUnit, blas.Unit}[it/4%2]
			lda := n + r.IntN(3)
			a := triangular(r, n, lda, ul == blas.Upper, d == blas.Unit)
			x := randSlice(r, n)
			what := fmt.Sprintf("Dtrsv(%c,%c,%c,n=%d,lda=%d)", ul, tA, d, n, lda)
			want := slices.Clone(x)
			ref.Dtrsv(ul, tA, d, n, a, lda, want, 1)

			minTrsvPar = 1 << 30
			rows := slices.Clone(x)
			Implementation{}.Dtrsv(ul, tA, d, n, a, lda, rows, 1)
			minTrsvPar = 0
			var got [2][]float64
			for p := range 2 {
				old := runtime.GOMAXPROCS(p + 1)
				got[p] = slices.Clone(x)
				Implementation{}.Dtrsv(ul, tA, d, n, a, lda, got[p], 1)
				runtime.GOMAXPROCS(old)
			}
			check(t, what, got[1], want, 8*float64(n+2)*eps*4)
			for i := range n {
				if math.Float64bits(got[0][i]) != math.Float64bits(got[1][i]) {
					t.Fatalf("%s: element %d is %v on one processor, %v on two", what, i, got[0][i], got[1][i])
				}
				if tA == blas.Trans && math.Float64bits(got[1][i]) != math.Float64bits(rows[i]) {
					t.Fatalf("%s: element %d is %v by blocks, %v by rows", what, i, got[1][i], rows[i])
				}
			}
		}
	}
}
