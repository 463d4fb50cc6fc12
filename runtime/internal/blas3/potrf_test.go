package blas3

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
	gonumlapack "gonum.org/v1/gonum/lapack/gonum"
)

// TestPotrfAhead compares the look-ahead Dpotrf (orders up to potrfLeaf)
// with gonum's on XXᵀ + n·I, both triangles, odd orders and strides, with
// panels of 5, 16 and 128 columns (so that orders end in partial panels and
// the last steps have no rest to update), to TestDpotrf's tolerance; the
// other triangle and the padding past each row must be left as they were,
// and a negative pivot in the first panel, a middle one or the last must
// be reported.
func TestPotrfAhead(t *testing.T) {
	defer func(b int) { potrfBlock = b }(potrfBlock)
	refL := gonumlapack.Implementation{}
	r := rand.New(rand.NewPCG(41, 42))
	for _, nb := range []int{5, 16, 128} {
		potrfBlock = nb
		for _, n := range []int{1, 4, 5, 6, 17, 64, 129, 130, 263} {
			for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
				lda := n + r.IntN(3)
				a := spdSlice(r, n, lda)
				// Mark the other triangle and the padding.
				for i := range n {
					for j := range lda {
						if j >= n || (j < i) == (ul == blas.Upper) && i != j {
							if i*lda+j < len(a) {
								a[i*lda+j] = math.Pi
							}
						}
					}
				}
				want := slices.Clone(a)
				got := slices.Clone(a)
				if !refL.Dpotrf(ul, n, want, lda) || !(Lapack{}).Dpotrf(ul, n, got, lda) {
					t.Fatalf("n=%d: not positive definite", n)
				}
				what := fmt.Sprintf("Dpotrf(%c, n=%d, lda=%d, panels of %d)", ul, n, lda, nb)
				check(t, what, got, want, 8*float64(n+2)*eps*math.Sqrt(2*float64(n)))
				for i, v := range a {
					if v == math.Pi && got[i] != v {
						t.Fatalf("%s wrote element %d outside its triangle", what, i)
					}
				}
				for _, p := range []int{0, n / 2, n - 1} {
					bad := slices.Clone(a)
					bad[p*lda+p] = -1e9
					if (Lapack{}).Dpotrf(ul, n, bad, lda) {
						t.Errorf("%s accepted a matrix with a negative pivot at %d", what, p)
					}
				}
			}
		}
	}
}

// TestPotrfDeterministic: the look-ahead runs two goroutines whose order
// varies from run to run; the factor must be the same to the bit on
// repeated calls and with GOMAXPROCS = 1 and 2, at an order whose updates
// are split over the processors (above minPar).
func TestPotrfDeterministic(t *testing.T) {
	const n = 600
	r := rand.New(rand.NewPCG(43, 44))
	a := spdSlice(r, n, n)
	for _, ul := range []blas.Uplo{blas.Upper, blas.Lower} {
		var first []float64
		for run := range 6 {
			procs := 1 + run%2
			old := runtime.GOMAXPROCS(procs)
			got := slices.Clone(a)
			ok := Lapack{}.Dpotrf(ul, n, got, n)
			runtime.GOMAXPROCS(old)
			if !ok {
				t.Fatal("not positive definite")
			}
			if first == nil {
				first = got
				continue
			}
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(first[i]) {
					t.Fatalf("Dpotrf(%c) run %d (GOMAXPROCS=%d): element %d = %v, first run %v", ul, run, procs, i, got[i], first[i])
				}
			}
		}
	}
}

// TestPotrfInterrupted: an interrupt raised at any point of a look-ahead
// factorisation comes out as interrupt.Stop on the caller, whether the
// goroutine updating the rest or the caller's sees it (a panic on the
// other goroutine would end the process), and the next factorisation is
// right.
func TestPotrfInterrupted(t *testing.T) {
	const n = 1000
	r := rand.New(rand.NewPCG(45, 46))
	a := spdSlice(r, n, n)
	want := slices.Clone(a)
	start := time.Now()
	if !(Lapack{}).Dpotrf(blas.Upper, n, want, n) {
		t.Fatal("not positive definite")
	}
	full := time.Since(start)
	for i := 1; i <= 8; i++ {
		tok := interrupt.Begin(context.Background())
		got := raisedDuring(tok, full*time.Duration(i)/10, func() {
			Lapack{}.Dpotrf(blas.Upper, n, slices.Clone(a), n)
		})
		tok.End()
		if !interrupt.Is(got) {
			t.Fatalf("interrupt raised at %d/10 of a factorisation: panicked with %v", i, got)
		}
	}
	got := slices.Clone(a)
	if !(Lapack{}).Dpotrf(blas.Upper, n, got, n) {
		t.Fatal("not positive definite after the interrupts")
	}
	check(t, "Dpotrf after the interrupts", got, want, 0)
}

// TestPotrfLowerFrom checks that factoring from a source matrix gives,
// to the bit, what Dpotrf gives on a copy of its lower triangle: the copy
// is only moved into the first trailing update (and into the halves above
// potrfLeaf, here lowered to 40), so the arithmetic is the same. Panels of
// 5, 16 and 128, odd orders and strides, with the size thresholds as they
// ship (small trailing updates go to gonum's Dsyrk, as Dpotrf's do) and,
// with them off, every vector level with default and small blocks, serial
// and parallel; dst's strict upper triangle, NaN before, must be zero
// after and its padding as it was, src must not change, and a NaN or an
// infinity anywhere in src's lower triangle, or a negative pivot, must
// make it fail.
func TestPotrfLowerFrom(t *testing.T) {
	defer func(b, l int) { potrfBlock, potrfLeaf = b, l }(potrfBlock, potrfLeaf)
	t.Run("defaults", testPotrfLowerFrom) // the size thresholds as they ship
	configs(t, testPotrfLowerFrom)
}

func testPotrfLowerFrom(t *testing.T) {
	{
		r := rand.New(rand.NewPCG(43, 44))
		for _, nb := range []int{5, 16, 128} {
			potrfBlock = nb
			for _, leaf := range []int{2048, 40} {
				potrfLeaf = leaf
				for _, n := range []int{1, 5, 6, 11, 17, 33, 129, 263} {
					lds, ldd := n+r.IntN(3), n+r.IntN(3)
					src := spdSlice(r, n, lds)
					for i := range n { // the upper triangle of src is not read
						for j := i + 1; j < n; j++ {
							src[i*lds+j] = math.NaN()
						}
					}
					orig := slices.Clone(src)
					want := make([]float64, (n-1)*ldd+n)
					for i := range n {
						copy(want[i*ldd:i*ldd+i+1], src[i*lds:i*lds+i+1])
					}
					// dst's strict upper triangle holds garbage, which
					// must become zero, and its padding π, which must stay.
					dst := make([]float64, len(want))
					for i := range n {
						for j := i + 1; j < ldd && i*ldd+j < len(dst); j++ {
							dst[i*ldd+j] = math.Pi
							if j < n {
								dst[i*ldd+j] = math.NaN()
							} else {
								want[i*ldd+j] = math.Pi
							}
						}
					}
					what := fmt.Sprintf("n=%d lds=%d ldd=%d panels of %d leaf %d", n, lds, ldd, nb, leaf)
					if !(Lapack{}).Dpotrf(blas.Lower, n, want, ldd) || !PotrfLowerFrom(n, dst, ldd, src, lds) {
						t.Fatalf("%s: not positive definite", what)
					}
					for i := range want {
						if math.Float64bits(dst[i]) != math.Float64bits(want[i]) {
							t.Fatalf("%s: element %d is %v, Dpotrf on a copy gives %v", what, i, dst[i], want[i])
						}
					}
					for i := range src {
						if math.Float64bits(src[i]) != math.Float64bits(orig[i]) {
							t.Fatalf("%s: src[%d] changed", what, i)
						}
					}
					for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e9} {
						i := r.IntN(n)
						j := r.IntN(i + 1)
						if bad == -1e9 {
							j = i
						}
						s := slices.Clone(src)
						s[i*lds+j] = bad
						if PotrfLowerFrom(n, make([]float64, len(dst)), ldd, s, lds) {
							t.Fatalf("%s: %v at [%d, %d] was factored", what, bad, i, j)
						}
					}
				}
			}
		}
	}
}
