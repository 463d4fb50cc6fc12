package linalg

import (
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/internal/rawmem"
	"github.com/kml-lang/kml/runtime/interrupt"
)

// LU is the factorisation P·A = L·U of a square matrix with partial
// pivoting, LAPACK's getrf on a row-major copy it owns: the script
// builtins det, logdet, solve and inv on a user's matrix.
//
// It is what gonum's mat.LU gives (to the bit but for the condition
// estimate, see RCond), without the work around
// the factorisation that made logdet(A) and solve(A, b) from a script
// cost 1.8 times the bare getrf at n = 2000 (stdlib/core's
// BenchmarkLUAlternated): the copy comes in a buffer that is never
// cleared first (rawmem), written in one parallel pass that also takes
// the norm of A and checks that every element is finite, where mat.LU
// cleared, copied, took the norm and (in the builtin) checked in four
// serial passes; and the condition estimate (RCond) solves with the
// factors by row-major level-2 BLAS, where gonum's Dgecon calls Dlatrs,
// whose column norms and solves read the row-major factors down their
// columns: 170 of the 165–180 ms overhead.
type LU struct {
	N    int
	Data []float64 // L strictly below the diagonal (unit diagonal implied), U on and above; stride N
	Ipiv []int     // getrf's row interchanges: row i was swapped with row Ipiv[i]
	// Norm is ‖A‖∞, the largest sum of absolute values along a row, the
	// norm of mat.LU's condition number (mat.CondNorm).
	Norm float64
	// Singular is set when getrf met an exactly zero pivot.
	Singular bool
}

// luBlock is the number of rows each worker copies at a time.
const luBlock = 64

// FactorLU factors the n×n matrix a, which it does not write. It reports
// false, with no factorisation, when a has a NaN or an infinity (the
// caller then finds which, for its message).
func FactorLU(a blas64.General) (*LU, bool) {
	n := a.Rows
	if a.Cols != n {
		panic("linalg: FactorLU needs a square matrix")
	}
	f := &LU{N: n, Data: rawmem.Float64s(n * n), Ipiv: make([]int, n)}
	rowSums := make([]float64, n)
	bad := make([]bool, par.NumBlocks(n, luBlock))
	workers := 1
	if n >= symParMin {
		workers = runtime.GOMAXPROCS(0)
	}
	par.Blocks(n, luBlock, workers, func(b, lo, hi int) {
		interrupt.Check()
		for i := lo; i < hi; i++ {
			row := a.Data[i*a.Stride : i*a.Stride+n]
			copy(f.Data[i*n:i*n+n], row)
			var s float64
			for _, x := range row {
				s += math.Abs(x)
			}
			if s-s != 0 { // a NaN or an infinity in the row, or a sum past the largest float
				for _, x := range row {
					if x-x != 0 {
						bad[b] = true
					}
				}
			}
			rowSums[i] = s
		}
	})
	for _, x := range bad {
		if x {
			return nil, false
		}
	}
	for _, s := range rowSums {
		f.Norm = max(f.Norm, s)
	}
	f.Singular = !lapack64.Getrf(f.general(), f.Ipiv)
	return f, true
}

func (f *LU) general() blas64.General {
	return blas64.General{Rows: f.N, Cols: f.N, Stride: f.N, Data: f.Data}
}

// RCond estimates the reciprocal of A's condition number in the ∞-norm,
// 1/(‖A‖∞·‖A⁻¹‖∞), by LAPACK's dgecon: Hager and Higham's estimator
// (Dlacn2) of ‖A⁻¹‖∞ from a few solves with the factors. Where dgecon
// solves by dlatrs, it solves by dtrsv, reading the row-major factors
// along their rows. dlatrs calls dtrsv itself while its bound on the
// solution's growth allows, and otherwise solves column by column with
// scale factors that guard against overflow; the two differ only in the
// order of the same sums (1e-12 relative in TestLUMatchesMat) unless a
// solve overflows, which takes ‖A⁻¹x‖ near 1e308 and so a numerically
// singular A: RCond is then 0, as dgecon's is when its scale factor
// underflows. It is 0 for an exactly singular A.
func (f *LU) RCond() float64 {
	n := f.N
	switch {
	case n == 0:
		return 1
	case f.Singular || f.Norm == 0 || math.IsInf(f.Norm, 1):
		return 0
	}
	bi := blas64.Implementation()
	work := make([]float64, 2*n)
	x, v := work[:n], work[n:]
	isgn := make([]int, n)
	var isave [3]int
	var est float64
	kase := 0
	for {
		est, kase = gonum.Implementation{}.Dlacn2(n, v, x, isgn, est, kase, &isave)
		if kase == 0 {
			if est == 0 {
				return 0
			}
			return (1 / est) / f.Norm
		}
		// In gonum's row-major convention, the ∞-norm is dgecon's case
		// for kase 2 (A⁻¹x) and kase 1 (A⁻ᵀx).
		if kase == 2 {
			bi.Dtrsv(blas.Lower, blas.NoTrans, blas.Unit, n, f.Data, n, x, 1)
			bi.Dtrsv(blas.Upper, blas.NoTrans, blas.NonUnit, n, f.Data, n, x, 1)
		} else {
			bi.Dtrsv(blas.Upper, blas.Trans, blas.NonUnit, n, f.Data, n, x, 1)
			bi.Dtrsv(blas.Lower, blas.Trans, blas.Unit, n, f.Data, n, x, 1)
		}
		for _, y := range x {
			if y-y != 0 {
				return 0
			}
		}
	}
}

// LogDet returns log |det A| and the sign of det A, as mat.LU.LogDet:
// floats.Sum of the logarithms of U's diagonal, so the bits are its too.
func (f *LU) LogDet() (logAbs, sign float64) {
	sign = 1
	logs := make([]float64, f.N)
	for i := range f.N {
		u := f.Data[i*f.N+i]
		if u < 0 {
			sign = -sign
		}
		if f.Ipiv[i] != i {
			sign = -sign
		}
		logs[i] = math.Log(math.Abs(u))
	}
	return floats.Sum(logs), sign
}

// Solve overwrites b (n×k) with A⁻¹b, by getrs.
func (f *LU) Solve(b blas64.General) {
	if b.Rows != f.N {
		panic("linalg: LU.Solve: b has the wrong number of rows")
	}
	lapack64.Getrs(blas.NoTrans, f.general(), b, f.Ipiv)
}

// Inverse overwrites the factorisation with A⁻¹ (getri) and returns it as
// a row-major n×n buffer; f is spent. It reports false when A is exactly
// singular.
func (f *LU) Inverse() ([]float64, bool) {
	if f.Singular {
		return nil, false
	}
	g := f.general()
	work := make([]float64, 1)
	lapack64.Getri(g, f.Ipiv, work, -1)
	work = make([]float64, max(int(work[0]), 1))
	if !lapack64.Getri(g, f.Ipiv, work, len(work)) {
		return nil, false
	}
	return f.Data, true
}
