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
