package kernels

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/rng"
)

// TestExpandCancellation checks the expanded squared distances where
// ‖x‖² + ‖y‖² − 2xᵀy cancels: points far from the origin (an offset of
// 1e4, which centring removes, and spread 1e3 around it, which it does
// not), with near-duplicates at distances down to 1e-7 and exact duplicates.
// Every entry must be within 1e-12 relative of the direct sum, and exact
// duplicates exactly 0.
func TestExpandCancellation(t *testing.T) {
	r := rng.New(91, rng.Stream(0x6578706e)) // "expn"
	for _, d := range []int{expandMinDim, 10, 33} {
		n := 150
		x := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for c := 0; c < d; c++ {
				if i%3 == 0 || i == 0 {
					x.Set(i, c, 1e4+1e3*r.NormFloat64())
					continue
				}
				// Near the previous point, or (i%3 == 2, c odd) on it.
				eps := math.Pow(10, -7+6*r.Float64()) * r.NormFloat64()
				if i%3 == 2 && i%2 == 1 {
					eps = 0
				}
				x.Set(i, c, x.At(i-1, c)+eps)
			}
		}
		y := mat.DenseCopyOf(x.Slice(0, 40, 0, d))
		for _, sym := range []bool{true, false} {
			t.Run(fmt.Sprintf("D=%d/sym=%v", d, sym), func(t *testing.T) {
				var g *grid
				if sym {
					g = newGrid(x, nil, 2)
				} else {
					g = newGrid(x, y, 2)
				}
				p := g.prepare([]float64{1}, true)
				if p.nx == nil {
					t.Fatal("prepare chose direct loops")
				}
				out := make([]float64, g.n*g.m)
				g.parallel(func(i0, i1 int) { g.sqDistExpandRows(p, out, i0, i1) })
				for i := 0; i < g.n; i++ {
					for j := g.jStart(i); j < g.m; j++ {
						want := sqDist(g.xs[i*d:(i+1)*d], g.ys[j*d:(j+1)*d])
						got := out[i*g.m+j]
						if want == 0 && got != 0 || math.Abs(got-want) > 1e-12*want {
							t.Fatalf("[%d, %d]: %v, direct %v", i, j, got, want)
						}
					}
				}
			})
		}
	}
}
