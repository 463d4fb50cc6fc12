package blas3

import (
	"math"
	"sync/atomic"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"
)

func init() { lapack64.Use(Lapack{}) }

// Lapack is gonum's LAPACK with Dpocon replaced. mat.Cholesky.Factorize
// estimates the condition number of every factor with Dpocon, whose
// triangular solves go through Dlatrs; for large n Dlatrs takes its
// careful, overflow-guarded path, which walks the columns of the
// row-major factor one element per cache line, and at n = 4000 that
// costs as much as the factorisation itself. Lapack's Dpocon runs the
// same estimator (Dlacn2) with plain row-oriented solves (Dtrsv) and, if a
// solve overflows or meets a NaN, starts over with gonum's Dpocon.
type Lapack struct {
	gonumlapack.Implementation
}

var _ lapack.Float64 = Lapack{}

// poconCalls counts the calls of Lapack's Dpocon, for the tests.
var poconCalls atomic.Int64

// Dpocon estimates the reciprocal of the 1-norm condition number of the
// SPD matrix whose Cholesky factor is in a; see gonum's Dpocon.
func (impl Lapack) Dpocon(uplo blas.Uplo, n int, a []float64, lda int, anorm float64, work []float64, iwork []int) float64 {
	if (uplo != blas.Upper && uplo != blas.Lower) || n <= 0 || lda < max(1, n) ||
		!(anorm > 0) || math.IsInf(anorm, 1) || len(a) < (n-1)*lda+n ||
		len(work) < 3*n || len(iwork) < n {
		return impl.Implementation.Dpocon(uplo, n, a, lda, anorm, work, iwork)
	}
	poconCalls.Add(1)
	bi := blas64.Implementation()
	var (
		ainvnm float64
		kase   int
		isave  [3]int
	)
	first, second := blas.Trans, blas.NoTrans // A⁻¹ = U⁻¹U⁻ᵀ
	if uplo == blas.Lower {
		first, second = blas.NoTrans, blas.Trans // A⁻¹ = L⁻ᵀL⁻¹
	}
	x := work[:n]
	for {
		ainvnm, kase = impl.Dlacn2(n, work[n:], x, iwork, ainvnm, kase, &isave)
		if kase == 0 {
			if ainvnm != 0 {
				return (1 / ainvnm) / anorm
			}
			return 0
		}
		bi.Dtrsv(uplo, first, blas.NonUnit, n, a, lda, x, 1)
		bi.Dtrsv(uplo, second, blas.NonUnit, n, a, lda, x, 1)
		if v := x[bi.Idamax(n, x, 1)]; math.IsNaN(v) || math.IsInf(v, 0) {
			return impl.Implementation.Dpocon(uplo, n, a, lda, anorm, work, iwork)
		}
	}
}

// potrfLeaf is the order up to which Dpotrf is gonum's blocked Dpotrf.
var potrfLeaf = 2048

// Dpotrf computes the Cholesky factorisation of the SPD matrix a in place;
// see gonum's Dpotrf. gonum's factors blocks of 64 columns, so its DGEMM
// updates have 64 rows and every packed panel of the trailing matrix
// serves only 64 rows; this one recurses on halves, A = [A₁₁ A₁₂; · A₂₂]:
// U₁₁ = chol(A₁₁), U₁₂ = U₁₁⁻ᵀA₁₂, U₂₂ = chol(A₂₂ − U₁₂ᵀU₁₂) (and the
// transpose for the lower triangle), so nearly all of the work is in large
// DTRSM and DSYRK calls. Blocks of order potrfLeaf or less are factored by
// panels with look-ahead (potrfAhead, potrf.go): measured side by side
// (AVX-512, load 6.5), the recursion on gonum's left-looking Dpotrf gained
// 10% at n = 4000 but lost 6% at n = 1000 and nothing at 2000, whose DTRSM
// and DSYRK themselves work in blocks of 64 and 128 rows; with the
// look-ahead below it, a leaf of 5000 rather than 2048 loses 15% at
// n = 4000 (63 against 74 GFLOP/s, load 1.0).
func (impl Lapack) Dpotrf(ul blas.Uplo, n int, a []float64, lda int) bool {
	interrupt.Check()
	if (ul != blas.Upper && ul != blas.Lower) || lda < n || len(a) < (n-1)*lda+n {
		return impl.Implementation.Dpotrf(ul, n, a, lda)
	}
	if n <= potrfLeaf {
		return impl.potrfAhead(ul, n, a, lda, nil, 0)
	}
	bi := blas64.Implementation()
	h := n / 2
	if !impl.Dpotrf(ul, h, a, lda) {
		return false
	}
	a22 := a[h*lda+h:]
	if ul == blas.Upper {
		a12 := a[h:]
		bi.Dtrsm(blas.Left, blas.Upper, blas.Trans, blas.NonUnit, h, n-h, 1, a, lda, a12, lda)
		bi.Dsyrk(blas.Upper, blas.Trans, n-h, h, -1, a12, lda, 1, a22, lda)
	} else {
		a21 := a[h*lda:]
		bi.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, n-h, h, 1, a, lda, a21, lda)
		bi.Dsyrk(blas.Lower, blas.NoTrans, n-h, h, -1, a21, lda, 1, a22, lda)
	}
	return impl.Dpotrf(ul, n-h, a22, lda)
}

// Dlansy returns the given norm of the symmetric matrix in the uplo
// triangle of a; see gonum's Dlansy. mat.Cholesky.Factorize takes the
// 1-norm of every matrix it factors (for the condition estimate), and
// gonum's loop for it adds each entry into two column sums in memory,
// work[i] and work[j], so every step waits on a store: at n = 1000 that
// was 1 ms, 7% of the factorisation. This one keeps row i's sum in a
// register and adds the same terms in the same order, so the norm is the
// same to the bit; the other norms are gonum's.
func (impl Lapack) Dlansy(norm lapack.MatrixNorm, ul blas.Uplo, n int, a []float64, lda int, work []float64) float64 {
	if (norm != lapack.MaxColumnSum && norm != lapack.MaxRowSum) || (ul != blas.Upper && ul != blas.Lower) ||
		n <= 0 || lda < n || len(a) < (n-1)*lda+n || len(work) < n {
		return impl.Implementation.Dlansy(norm, ul, n, a, lda, work)
	}
	work = work[:n]
	clear(work)
	if ul == blas.Upper {
		// Column i's sum is the terms of rows k < i (added as work[j] of
		// row k), then |a[i,i]|, then row i's terms j > i in order.
		for i := range n {
			row := a[i*lda+i+1 : i*lda+n]
			w := work[i+1:]
			w = w[:len(row)]
			s := work[i] + math.Abs(a[i*lda+i])
			for j, v := range row {
				v = math.Abs(v)
				s += v
				w[j] += v
			}
			work[i] = s
		}
	} else {
		// Row i's terms j < i come after column i's earlier ones (none:
		// work[i] is added to only by rows after i), then the diagonal.
		for i := range n {
			row := a[i*lda : i*lda+i]
			w := work[:i]
			s := work[i]
			for j, v := range row {
				v = math.Abs(v)
				s += v
				w[j] += v
			}
			work[i] = s + math.Abs(a[i*lda+i])
		}
	}
	var m float64
	for _, v := range work {
		if math.IsNaN(v) {
			return math.NaN()
		}
		m = max(m, v)
	}
	return m
}
