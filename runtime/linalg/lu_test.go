package linalg

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// luCase is a seeded n×n matrix with standard normal entries plus
// diag·I, inside a wider matrix when padded (a strided view).
func luCase(seed uint64, n int, diag float64, padded bool) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 7))
	cols := n
	if padded {
		cols = n + 3
	}
	big := mat.NewDense(n, cols, nil)
	for i := range n {
		for j := range cols {
			big.Set(i, j, r.NormFloat64())
		}
		big.Set(i, i, big.At(i, i)+diag)
	}
	return big.Slice(0, n, 0, n).(*mat.Dense)
}

func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: element %d is %v, gonum's mat gives %v", what, i, got[i], want[i])
		}
	}
}

// TestLUMatchesMat checks FactorLU against gonum's mat.LU and
// mat.Dense.Inverse, to the bit: log |det| and its sign, the solution of
// one and of three right-hand sides and the inverse; and the condition
// number to 1e-12 relative (RCond solves by dtrsv where dgecon's dlatrs
// solves by dtrsv only while its growth bound allows, column by column
// after that: the same sums in another order). Serial and parallel (from
// n = 256), on contiguous matrices and strided views, with memory just
// freed filled with -7 so that a copy that missed an element shows.
func TestLUMatchesMat(t *testing.T) {
	for k, n := range []int{1, 2, 7, 64, 65, 200, 300, 513} {
		for _, padded := range []bool{false, true} {
			a := luCase(uint64(k), n, 0, padded)
			what := fmt.Sprintf("n=%d padded=%v", n, padded)
			poison(n * n)
			f, ok := FactorLU(a.RawMatrix())
			if !ok {
				t.Fatalf("%s: finite matrix refused", what)
			}
			var lu mat.LU
			lu.Factorize(a)
			gl, gs := f.LogDet()
			wl, ws := lu.LogDet()
			sameBits(t, what+" logdet", []float64{gl, gs}, []float64{wl, ws})
			if got, want := 1/f.RCond(), lu.Cond(); math.Abs(got-want) > 1e-12*want {
				t.Fatalf("%s: condition %v, gonum's %v", what, got, want)
			}
			for _, k := range []int{1, 3} {
				b := luCase(uint64(100+k), n, 0, false).Slice(0, n, 0, min(k, n)).(*mat.Dense)
				var want mat.Dense
				if err := lu.SolveTo(&want, false, b); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				got := mat.DenseCopyOf(b)
				f.Solve(got.RawMatrix())
				sameBits(t, fmt.Sprintf("%s solve with %d columns", what, k), got.RawMatrix().Data, want.RawMatrix().Data)
			}
			var want mat.Dense
			if err := want.Inverse(a); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			got, ok := f.Inverse()
			if !ok {
				t.Fatalf("%s: inverse refused", what)
			}
			sameBits(t, what+" inverse", got, want.RawMatrix().Data)
		}
	}
}

// TestLURCondSingular checks the estimate on matrices at and past the
// edge of singularity against gonum's: a row that is another's multiple
// up to rounding noise of 1e-17, 1e-13 and 1e-9 relative, and exactly
// singular ones (a zero row; two equal rows), where both must say the
// condition number is past mat.ConditionTolerance (or 0 and infinite).
func TestLURCondSingular(t *testing.T) {
	for k, noise := range []float64{0, 1e-17, 1e-13, 1e-9} {
		for _, n := range []int{5, 40, 300} {
			a := luCase(uint64(50+k), n, 0, false)
			r := rand.New(rand.NewPCG(uint64(k), uint64(n)))
			for j := range n {
				a.Set(n-1, j, 3*a.At(1, j)*(1+noise*r.NormFloat64()))
			}
			if k == 0 && n == 40 {
				for j := range n {
					a.Set(3, j, 0)
				}
			}
			f, ok := FactorLU(a.RawMatrix())
			if !ok {
				t.Fatal("finite matrix refused")
			}
			var lu mat.LU
			lu.Factorize(a)
			got, want := 1/f.RCond(), lu.Cond()
			if (got > mat.ConditionTolerance) != (want > mat.ConditionTolerance) {
				t.Errorf("noise %g n=%d: condition %g, gonum's %g", noise, n, got, want)
			}
			if noise >= 1e-13 && math.Abs(got-want) > 1e-6*want {
				t.Errorf("noise %g n=%d: condition %g, gonum's %g", noise, n, got, want)
			}
		}
	}
}

// TestLUNotFinite checks that a NaN or an infinity anywhere refuses the
// matrix, and that rows whose absolute sums overflow, with every element
// finite, do not: their condition number is then infinite, as gonum's.
func TestLUNotFinite(t *testing.T) {
	const n = 300
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, at := range [][2]int{{0, 0}, {299, 0}, {150, 299}, {77, 3}} {
			a := luCase(9, n, 0, true)
			a.Set(at[0], at[1], bad)
			if _, ok := FactorLU(a.RawMatrix()); ok {
				t.Errorf("%v at %v accepted", bad, at)
			}
		}
	}
	a := luCase(9, n, 0, false)
	for j := range n {
		a.Set(10, j, math.MaxFloat64/2)
	}
	f, ok := FactorLU(a.RawMatrix())
	if !ok {
		t.Fatal("finite matrix with an overflowing row sum refused")
	}
	if f.RCond() != 0 || !math.IsInf(f.Norm, 1) {
		t.Errorf("overflowing row sum: rcond %v, norm %v", f.RCond(), f.Norm)
	}
}
