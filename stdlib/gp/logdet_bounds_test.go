package gp_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// logdetBoundsSrc is examples/mkl_logdet_bounds.kml's computation (the MKL
// paper's Figure 1) on random kernel matrices: K_θ = θK₁ + K₀ with K₁ an
// rbf Gram matrix of 25 seeded normal draws and K₀ a linear and a white
// kernel's; bound(t0, p, t) is the tangent bound λθ^p − g*(λ) on ln|K_θ| at
// θ₀ = t0 at the θ of t (a number or a vector); theta is a grid of θ in
// [0, 10] with the tangent points on it.
const logdetBoundsSrc = `
let x = draw(normal(0, 1), 25, seed: %d)
let n = len(x)
let K1 = gram(rbf(%g), x)
let K0 = %g * gram(linear(), x) + %g * eye(n)
fn logdetK(t) = logdet(t * K1 + K0)
fn slope(t) = trace(solve(t * K1 + K0, K1))
fn bound(t0, p, t) = logdetK(t0) + slope(t0) / (p * t0^(p - 1)) * (t^p - t0^p)
let theta = concat(linspace(0, 10, 101), [0.2, 1, 3])
let f = map(theta, logdetK)
let scale = max(abs(f))
`

// boundCase is the KML for one bound, tangent at t0 with exponent p: its
// excess over ln|K_θ| on the grid, ex_i, and at θ₀, at_i.
const boundCase = `let ex_%[1]d = bound(%[2]g, %[3]g, theta) - f
let at_%[1]d = bound(%[2]g, %[3]g, %[2]g) - logdetK(%[2]g)
`

// TestLogDetBounds: on random K₀ and K₁ every bound with p = 1, 2 and 3 at
// θ₀ = 0.2, 1 and 3 lies above ln|K_θ| on θ in [0, 10] (to 10⁻⁹ of its
// scale) and equals it at θ₀ (to 10⁻⁹). With p = ½, where θ ↦ θ^p is not
// convex and g need not be concave, the same formula dips below ln|K_θ| at
// some θ₀ for every K here, so the check can fail.
func TestLogDetBounds(t *testing.T) {
	type bc struct{ p, t0 float64 }
	var cases []bc
	for _, p := range []float64{0.5, 1, 2, 3} {
		for _, t0 := range []float64{0.2, 1, 3} {
			cases = append(cases, bc{p, t0})
		}
	}
	for seed, c := range [][3]float64{{0.7, 0.1, 0.2}, {2, 0.5, 1}, {0.3, 0, 1}} {
		src := fmt.Sprintf(logdetBoundsSrc, seed+1, c[0], c[1], c[2])
		for i, bc := range cases {
			src += fmt.Sprintf(boundCase, i, bc.t0, bc.p)
		}
		in, _ := kmltest.Run(t, src)
		scale := float64(kmltest.Lookup[eval.Num](t, in, "scale"))
		halfDips := false
		for i, bc := range cases {
			ex, _ := eval.ToFloats(kmltest.Lookup[eval.Value](t, in, fmt.Sprintf("ex_%d", i)))
			at := float64(kmltest.Lookup[eval.Num](t, in, fmt.Sprintf("at_%d", i)))
			least := math.Inf(1)
			for _, v := range ex {
				least = math.Min(least, v)
			}
			label := fmt.Sprintf("seed %d, p = %g, θ₀ = %g", seed+1, bc.p, bc.t0)
			if math.Abs(at) > 1e-9*(1+scale) {
				t.Errorf("%s: the bound exceeds ln|K_θ₀| by %.3g at its tangent point", label, at)
			}
			if bc.p < 1 {
				halfDips = halfDips || least < -1e-3
			} else if least < -1e-9*(1+scale) {
				t.Errorf("%s: the bound falls %.3g below ln|K_θ|", label, -least)
			}
		}
		if !halfDips {
			t.Errorf("seed %d: the formula with p = ½ stayed above ln|K_θ| at every θ₀; the check cannot fail", seed+1)
		}
	}
}
