package blas3

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kml-lang/kml/runtime/interrupt"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"
)

// stopped runs f and returns the value it panicked with (nil if none).
func stopped(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

// raisedDuring raises tok after d and calls f over and over until it
// panics, and returns the value it panicked with, or nil if a call of f
// begun after the raise ran to its end (the interrupt was missed). Unlike
// a fixed number of calls, which a timer late on a loaded machine can
// outlast, this does not depend on how fast the machine runs.
func raisedDuring(tok *interrupt.Token, d time.Duration, f func()) any {
	timer := time.AfterFunc(d, tok.Raise)
	defer timer.Stop()
	return stopped(func() {
		for {
			after := tok.Raised()
			f()
			if after {
				return
			}
		}
	})
}

// TestInterruptStopsKernels: once the run's token is raised, every level-3
// routine panics with interrupt.Stop on the calling goroutine (never on a
// worker, which would end the process), a Cholesky running when it is
// raised stops long before it would end, and after the run ends the kernels
// compute the right product again.
func TestInterruptStopsKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	n := 300
	a, b := randSlice(r, n*n), randSlice(r, n*n)
	tok := interrupt.Begin(context.Background())
	tok.Raise()
	for name, f := range map[string]func(){
		"Dgemm": func() {
			Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, make([]float64, n*n), n)
		},
		"Dsyrk": func() { Implementation{}.Dsyrk(blas.Upper, blas.NoTrans, n, n, 1, a, n, 0, make([]float64, n*n), n) },
		"Dtrsm": func() {
			Implementation{}.Dtrsm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, n, 1, spd(n, 2).RawSymmetric().Data, n, append([]float64(nil), b...), n)
		},
		"Dtrmm": func() {
			Implementation{}.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, n, n, 1, a, n, append([]float64(nil), b...), n)
		},
		"Cholesky": func() { var ch mat.Cholesky; ch.Factorize(spd(n, 3)) },
		"Dpotri":   func() { Lapack{}.Dpotri(blas.Upper, n, spd(n, 5).RawSymmetric().Data, n) },
	} {
		if got := stopped(f); !interrupt.Is(got) {
			t.Errorf("%s after Raise: panicked with %v, want interrupt.Stop", name, got)
		}
	}
	tok.End()

	// Raised while Cholesky factorisations of order 2000 run: the one
	// running stops.
	big := spd(2000, 4)
	start := time.Now()
	var ch mat.Cholesky
	ch.Factorize(big)
	full := time.Since(start)
	tok = interrupt.Begin(context.Background())
	got := raisedDuring(tok, full/10, func() { ch.Factorize(big) })
	tok.End()
	if !interrupt.Is(got) {
		t.Fatalf("Cholesky factorisations with an interrupt raised at %v: panicked with %v", full/10, got)
	}

	// Raised while inverses of order 2000 run: the one running stops, and
	// the panic comes out on this goroutine although Dtrtri runs its
	// halves on two (a panic on the other would end the process).
	if !ch.Factorize(big) {
		t.Fatal("not positive definite")
	}
	var inv mat.SymDense
	start = time.Now()
	if err := ch.InverseTo(&inv); err != nil {
		t.Fatal(err)
	}
	full = time.Since(start)
	tok = interrupt.Begin(context.Background())
	got = raisedDuring(tok, full/10, func() { ch.InverseTo(&inv) })
	tok.End()
	if !interrupt.Is(got) {
		t.Fatalf("inverses with an interrupt raised at %v: panicked with %v", full/10, got)
	}

	// Ended: the product is gonum's again.
	c := make([]float64, n*n)
	Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, c, n)
	want := make([]float64, n*n)
	ref.Dgemm(blas.NoTrans, blas.NoTrans, n, n, n, 1, a, n, b, n, 0, want, n)
	check(t, "Dgemm after End", c, want, 4*float64(n+2)*eps*float64(n))
}
