package blas3

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// spd returns a random n×n symmetric positive definite matrix.
func spd(n int, seed uint64) *mat.SymDense {
	r := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, n, randSlice(r, n*n))
	var s mat.SymDense
	s.SymOuterK(1, x)
	for i := range n {
		s.SetSym(i, i, s.At(i, i)+float64(n))
	}
	return &s
}

// TestCholeskyRoutes checks that the init installed this package as gonum's
// BLAS and that mat.Cholesky's factorisation and solve run on its kernels,
// and agree with gonum's own BLAS.
func TestCholeskyRoutes(t *testing.T) {
	if _, ok := blas64.Implementation().(Implementation); !ok {
		t.Fatalf("blas64.Implementation() is %T", blas64.Implementation())
	}
	const n = 300 // above gonum's Dpotrf block (64), so it calls level 3
	a := spd(n, 7)
	before := calls.Load()
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		t.Fatal("not positive definite")
	}
	b := mat.NewDense(n, 20, randSlice(rand.New(rand.NewPCG(8, 9)), n*20))
	var x mat.Dense
	if err := ch.SolveTo(&x, b); err != nil {
		t.Fatal(err)
	}
	got := calls.Load() - before
	if got == 0 {
		t.Fatal("mat.Cholesky made no call to this package's kernels")
	}
	t.Logf("%d level-3 calls", got)

	blas64.Use(ref)
	defer blas64.Use(Implementation{})
	var chRef mat.Cholesky
	chRef.Factorize(a)
	var xRef mat.Dense
	if err := chRef.SolveTo(&xRef, b); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(ch.RawU(), chRef.RawU(), 1e-12) || !mat.EqualApprox(&x, &xRef, 1e-12) {
		t.Fatal("factor or solution differs from gonum's BLAS")
	}
}
