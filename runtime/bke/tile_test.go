package bke

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTilesMatchGeneral checks a block of rows through the tile kernels
// (block: five whole tiles, then five rows through row) against the same
// rows through rowGeneral, block sum by block sum, for D = 1 and D = 2
// with one lengthscale, with and without the gradient, with a row far from
// every landmark inside a tile and one among the rows after the tiles
// (both finished by cauchyBinet).
func TestTilesMatchGeneral(t *testing.T) {
	if !tileKernels() {
		t.Skip("no AVX-512: the tile kernels do not run here")
	}
	rng := rand.New(rand.NewPCG(3001, 3002))
	for _, dim := range []int{1, 2} {
		for _, m := range []int{3, 9, 20} {
			x := randMatrix(rng, 45, dim, 1)
			z := randMatrix(rng, m, dim, 1)
			x.Set(3, 0, 40)
			x.Set(42, dim-1, -35)
			md, err := New(x, z, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := md.prepare(Hyper{Ell: []float64{0.7}, Tau2: 1}, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, grad := range []bool{false, true} {
				ps := &pass{md: md, p: p, grad: grad, jac: true, np: 1}
				ps.shifts()
				if !ps.tiled() {
					t.Fatalf("D=%d: the pass does not run by tiles", dim)
				}
				sc := ps.newScratch()
				fast := make([]float64, ps.blockSize())
				slow := make([]float64, ps.blockSize())
				if err := ps.block(sc, ps.view(fast), 0, md.n); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < md.n; i++ {
					if err := ps.rowGeneral(sc, ps.view(slow), i); err != nil {
						t.Fatal(err)
					}
				}
				sc.flushDet(ps.view(slow))
				for k := range fast {
					if math.Abs(fast[k]-slow[k]) > 1e-13*(1+math.Abs(slow[k])) {
						t.Errorf("D=%d m=%d grad=%v: block sum %d is %.17g, general %.17g", dim, m, grad, k, fast[k], slow[k])
					}
				}
			}
		}
	}
}

// TestRowOverflowError checks that a row whose scaled squared distances
// overflow is reported by its 1-based number, the first such row in row
// order, through the tiles, the written-out rows and rowGeneral alike.
func TestRowOverflowError(t *testing.T) {
	savedAsm, savedTile := useRowAsm, useTileAsm
	defer func() { useRowAsm, useTileAsm, generalRows = savedAsm, savedTile, false }()
	rng := rand.New(rand.NewPCG(3003, 3004))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 300, dim, 1)
		x.Set(203, 0, 1e200) // row 204 of the second block, in its first tile
		x.Set(250, 0, -1e200)
		md, err := New(x, randMatrix(rng, 6, dim, 1), Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []struct{ asm, tile, general bool }{
			{savedAsm, savedTile, false}, {false, false, false}, {false, false, true},
		} {
			useRowAsm, useTileAsm, generalRows = path.asm, path.tile, path.general
			var g Grad
			_, err := md.LogDensity(Hyper{Ell: []float64{0.5}, Tau2: 1}, &g)
			if err == nil || !strings.Contains(err.Error(), "data row 204:") {
				t.Errorf("D=%d %+v: error %v, want one naming data row 204", dim, path, err)
			}
		}
	}
}

// TestLogDensityWorkersTiles is TestLogDensityWorkers for the tile path
// (D = 1 and D = 2 with one lengthscale): the same bits on 1, 2 and 5
// workers, with blocks that end in rows outside any tile.
func TestLogDensityWorkersTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3005, 3006))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 3*blockRows+21, dim, 1)
		z := randMatrix(rng, 11, dim, 1)
		h := Hyper{Ell: []float64{0.8}, Amp: 1.2, Tau2: 0.5}
		var ref float64
		var refG Grad
		for _, w := range []int{1, 2, 5} {
			md, err := New(x, z, Options{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			var g Grad
			v, err := md.LogDensity(h, &g)
			if err != nil {
				t.Fatal(err)
			}
			if w == 1 {
				ref, refG = v, g
				continue
			}
			if v != ref || g.Amp != refG.Amp || g.Tau2 != refG.Tau2 || g.Ell[0] != refG.Ell[0] {
				t.Errorf("D=%d workers %d: %v %+v, 1 worker: %v %+v", dim, w, v, g, ref, refG)
			}
		}
	}
}

// TestFrexpNormal checks frexpNormal against math.Frexp on normal numbers
// across the exponent range, the smallest and the largest.
func TestFrexpNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3007, 3008))
	xs := []float64{minNormal, math.MaxFloat64, 1, 0.5, 0.75}
	for k := 0; k < 1000; k++ {
		xs = append(xs, math.Ldexp(1+rng.Float64(), rng.IntN(2045)-1022))
	}
	for _, x := range xs {
		f, e := frexpNormal(x)
		wf, we := math.Frexp(x)
		if f != wf || e != we {
			t.Errorf("frexpNormal(%g) = %v, %d; math.Frexp gives %v, %d", x, f, e, wf, we)
		}
	}
}
