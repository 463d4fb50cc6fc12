package blas3

import (
	"math"
	"sync/atomic"

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
