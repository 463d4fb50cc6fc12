package kernel_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
	"github.com/kml-lang/kml/stdlib/kernel"
)

// TestGramFromScript checks gram(k, x) and gram(k, x, y), filled in place
// (upper triangle mirrored into the same buffer), entry by entry against
// the kernel itself, for stationary, composite and entry-wise kernels.
func TestGramFromScript(t *testing.T) {
	for _, kern := range []string{"rbf(0.7)", "rbf([0.5, 2, 1])", "matern52(1.3)", "matern32(0.9)", "laplacian(1.5)", "2 * rbf(1) + linear()", "rbf(1) * laplacian(2)", "white()", "periodic(1, 2)"} {
		in, _ := kmltest.Run(t, `
let x = cbind(draw(normal(0, 1), 70, seed: 1), draw(normal(0, 1), 70, seed: 2), draw(normal(0, 1), 70, seed: 3))
let y = x[1:9, :] + 0.25
let k = `+kern+`
let g = gram(k, x)
let c = gram(k, x, y)
`)
		k := kmltest.Lookup[*kernel.KernelVal](t, in, "k").K
		x := kmltest.Lookup[*eval.Mat](t, in, "x").M
		y := kmltest.Lookup[*eval.Mat](t, in, "y").M
		for _, tc := range []struct {
			name string
			a    *eval.Mat
			b    interface {
				Dims() (int, int)
				RawRowView(int) []float64
			}
		}{{"gram(k, x)", kmltest.Lookup[*eval.Mat](t, in, "g"), x}, {"gram(k, x, y)", kmltest.Lookup[*eval.Mat](t, in, "c"), y}} {
			n, m := tc.a.M.Dims()
			if bn, _ := tc.b.Dims(); n != 70 || m != bn {
				t.Fatalf("%s %s: %d×%d", kern, tc.name, n, m)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < m; j++ {
					want := k.Eval(x.RawRowView(i), tc.b.RawRowView(j))
					if got := tc.a.M.At(i, j); got != want && !closeEnough(got, want) {
						t.Fatalf("%s %s[%d, %d] = %v, want %v", kern, tc.name, i, j, got, want)
					}
				}
			}
		}
	}
}

// closeEnough allows the rounding of the fast paths (distances from scaled
// points, the vectorised exponential).
func closeEnough(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-14*(1+max(a, -a, b, -b))
}
