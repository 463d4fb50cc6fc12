package bke

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRowsMatchGeneral checks the written-out rows for D = 1 and 2 against
// rowGeneral, block sum by block sum, with row2's assembly loop (where the
// CPU has AVX2) and with its Go loop.
func TestRowsMatchGeneral(t *testing.T) {
	saved := useRowAsm
	defer func() { useRowAsm = saved }()
	for _, asm := range []bool{false, saved} {
		useRowAsm = asm
		checkRowsMatchGeneral(t)
	}
}

func checkRowsMatchGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 40, dim, 1)
		z := randMatrix(rng, 9, dim, 1)
		x.Set(3, 0, 40) // a row for cauchyBinet
		md, err := New(x, z, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, ell := range [][]float64{{0.7}, {0.7, 1.3}} {
			if len(ell) > dim {
				continue
			}
			p, err := md.prepare(Hyper{Ell: ell, Tau2: 1}, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, grad := range []bool{false, true} {
				ps := &pass{md: md, p: p, grad: grad, jac: true, np: len(ell)}
				ps.shifts(new(passBufs))
				sc := ps.newScratch()
				fast := make([]float64, ps.blockSize())
				slow := make([]float64, ps.blockSize())
				for i := 0; i < md.n; i++ {
					if err := ps.row(sc, ps.view(fast), i); err != nil {
						t.Fatal(err)
					}
					sc.flushDet(ps.view(fast))
					if err := ps.rowGeneral(sc, ps.view(slow), i); err != nil {
						t.Fatal(err)
					}
					sc.flushDet(ps.view(slow))
				}
				for k := range fast {
					if math.Abs(fast[k]-slow[k]) > 1e-13*(1+math.Abs(slow[k])) {
						t.Errorf("asm=%v D=%d ell=%v grad=%v: block sum %d is %.17g, general %.17g", useRowAsm, dim, ell, grad, k, fast[k], slow[k])
					}
				}
			}
		}
	}
}
