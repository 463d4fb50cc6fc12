package bke

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// TestFastRowsMatchGeneral checks a whole log density and its gradient
// on each vector path this machine has (cpufeat.Levels): through the tile
// kernels at AVX-512 (tile.go), and through the written-out rows (row1,
// row2: assembly distance and accumulation loops at AVX2, Go loops
// below; cq from the row's Exps call, pooled workspaces), against the same
// through rowGeneral (plain Go, one math.Exp per row for cq), to 1e-12
// relative (FMA against separate multiply and add, and a different
// summation order, move the last bits only), for D = 1 and 2, isotropic
// and ARD, m not a multiple of the vector widths, rows far from every
// landmark (cauchyBinet), one and two workers, and repeated evaluations
// (workspaces reused from the pool).
func TestFastRowsMatchGeneral(t *testing.T) {
	savedAsm, savedTile := useRowAsm, useTileAsm
	defer func() { useRowAsm, useTileAsm, generalRows = savedAsm, savedTile, false }()
	rng := rand.New(rand.NewPCG(3030, 3031))
	for _, dim := range []int{1, 2} {
		for _, m := range []int{5, 13, 20} {
			x := randMatrix(rng, 1300, dim, 1.5) // n·m ≥ 2·minEntriesPerWorker at m = 20
			z := randMatrix(rng, m, dim, 1)
			x.Set(7, 0, 60) // far from every landmark
			for _, workers := range []int{1, 2} {
				md, err := New(x, z, Options{Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				for _, ell := range [][]float64{{0.6}, {0.6, 1.4}} {
					if len(ell) > dim {
						continue
					}
					h := Hyper{Ell: ell, Amp: 1.3, Tau2: 0.7}
					// Each level this machine may run (cpufeat.Levels: the
					// CPU's, capped by KML_CPU): Go rows, AVX2 rows, and
					// the AVX-512 tiles.
					for _, path := range cpufeat.Levels() {
						restore := cpufeat.Use(path)
						useRowAsm, useTileAsm = savedAsm, savedTile
						generalRows = true
						var gRef Grad
						ref, err := md.LogDensity(h, &gRef)
						if err != nil {
							t.Fatal(err)
						}
						generalRows = false
						for rep := 0; rep < 2; rep++ {
							var g Grad
							v, err := md.LogDensity(h, &g)
							if err != nil {
								t.Fatal(err)
							}
							close := func(what string, a, b float64) {
								if math.Abs(a-b) > 1e-12*math.Max(1, math.Abs(b)) {
									t.Errorf("D=%d m=%d workers=%d ell=%v %v: %s %.17g, general rows %.17g", dim, m, workers, ell, path, what, a, b)
								}
							}
							close("log density", v, ref)
							close("d/dtau2", g.Tau2, gRef.Tau2)
							close("d/damp", g.Amp, gRef.Amp)
							for k := range g.Ell {
								close("d/dell", g.Ell[k], gRef.Ell[k])
							}
						}
						restore()
					}
				}
			}
		}
	}
}
