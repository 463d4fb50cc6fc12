package gp

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestMultiWarm: a sequence of multi-class modes by one MultiWarm (the
// length scale and amplitude in small steps, a jump to a far larger
// amplitude, then back to the fourth point) gives each time the cold
// mode's log q, â and f̂ to 10⁻⁸; starts warm, in fewer Newton steps, on
// the small steps; back at the fourth point after the jump starts from
// its mode (the one before the last) in no step; a second mode at the
// same K is the first to the bit; and a fresh MultiWarm reproduces every
// number to the bit. A mode fitted to shuffled labels is not used.
func TestMultiWarm(t *testing.T) {
	const n, C = 30, 3
	_, x, y := multiProblem(t, n, C, 21)
	steps := [][2]float64{{1, 2}, {1.1, 2.3}, {1.15, 2.6}, {1.2, 2.5}, {0.7, 400}, {1.2, 2.5}}
	run := func() []*MultiPosterior {
		w := &MultiWarm{}
		var out []*MultiPosterior
		for i, st := range steps {
			rbf, _ := kernels.NewRBF([]float64{st[0]})
			k, _ := kernels.NewScaled(st[1], rbf)
			K, _ := kernels.Gram(k, x)
			warm0 := w.Warm
			p, err := w.mode(K, y, C)
			if err != nil {
				t.Fatal(err)
			}
			fixed := w.fixed
			cold, err := MultiLaplaceMode(K, y, C)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && i < 4 && (w.Warm != warm0+1 || p.Iterations >= cold.Iterations) {
				t.Errorf("step %d (ℓ %g, a %g): warm %v, %d Newton steps against %d cold", i, st[0], st[1], w.Warm == warm0+1, p.Iterations, cold.Iterations)
			}
			if i == 5 && (w.Warm != warm0+1 || p.Iterations != 0) {
				t.Errorf("step 5: back at step 3's K after the far point, %d Newton steps (warm %v)", p.Iterations, w.Warm == warm0+1)
			}
			if d := math.Abs(p.LogQ - cold.LogQ); !(d <= 1e-8) {
				t.Errorf("step %d: log q warm %.12g, cold %.12g", i, p.LogQ, cold.LogQ)
			}
			for c := range C {
				for j := range n {
					if d := math.Abs(p.Alpha[c][j] - cold.Alpha[c][j]); !(d <= 1e-8*math.Max(1, math.Abs(cold.Alpha[c][j]))) {
						t.Errorf("step %d: â[%d][%d] warm %.12g, cold %.12g", i, c, j, p.Alpha[c][j], cold.Alpha[c][j])
					}
					if d := math.Abs(p.F[c][j] - cold.F[c][j]); !(d <= 1e-8*math.Max(1, math.Abs(cold.F[c][j]))) {
						t.Errorf("step %d: f̂[%d][%d] warm %.12g, cold %.12g", i, c, j, p.F[c][j], cold.F[c][j])
					}
				}
			}
			again, err := w.mode(K, y, C)
			if err != nil {
				t.Fatal(err)
			}
			if (fixed && again.Iterations != 0) || math.Float64bits(again.LogQ) != math.Float64bits(p.LogQ) {
				t.Errorf("step %d: a second mode at the same K took %d Newton steps (fixed point %v) and gave log q %.17g against %.17g", i, again.Iterations, fixed, again.LogQ, p.LogQ)
			}
			t.Logf("step %d (ℓ %g, a %g): %d Newton steps (%d warm starts so far), %d cold", i, st[0], st[1], p.Iterations, w.Warm, cold.Iterations)
			out = append(out, p)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if math.Float64bits(a[i].LogQ) != math.Float64bits(b[i].LogQ) {
			t.Errorf("step %d: a fresh MultiWarm gave log q %.17g, the first %.17g", i, b[i].LogQ, a[i].LogQ)
		}
	}
	// Labels shifted by one class: the last mode's Ψ is below Ψ(0).
	rbf, _ := kernels.NewRBF([]float64{1})
	k, _ := kernels.NewScaled(50, rbf)
	K, _ := kernels.Gram(k, x)
	shift := make([]int, n)
	for i, v := range y {
		shift[i] = (v + 1) % C
	}
	w := &MultiWarm{}
	for _, yy := range [][]int{shift, y} {
		if _, err := w.mode(K, yy, C); err != nil {
			t.Fatal(err)
		}
	}
	if w.Cold != 2 || w.Warm != 0 {
		t.Errorf("shifted labels: %d warm and %d cold starts, want 0 and 2", w.Warm, w.Cold)
	}
}

// TestMultiLaplaceLargeScale: at kernel scales a = 250 to 10⁶ (n = 100,
// C = 4) the mode is found in at most 30 Newton steps. With the gradient
// test absolute (10⁻¹²), the rounding of f = Ka kept the gradient above
// it: 34, 65 and 184 steps at a = 250, 6·10⁴ and 10⁶, wandering at that
// floor, and ErrMode at a = 10⁴ (tried); relative to max(1, Σ|K||a|) they
// take 10–27. Each mode's gradient is within that test, and its Ψ is not
// below Ψ at zero.
func TestMultiLaplaceLargeScale(t *testing.T) {
	const n, C = 100, 4
	_, x, y := multiProblem(t, n, C, 21)
	for _, a := range []float64{250, 1e4, 6e4, 1e6} {
		rbf, _ := kernels.NewRBF([]float64{0.8})
		k, _ := kernels.NewScaled(a, rbf)
		K, _ := kernels.Gram(k, x)
		p, err := MultiLaplaceMode(K, y, C)
		if err != nil {
			t.Errorf("a = %g: %v", a, err)
			continue
		}
		if p.Iterations > 30 {
			t.Errorf("a = %g: %d Newton steps", a, p.Iterations)
		}
		if v, ok := multiStartPsi(K, y, C, p.Alpha); !ok {
			t.Errorf("a = %g: Ψ at the mode %g is below Ψ(0)", a, v)
		}
		t.Logf("a = %g: %d Newton steps", a, p.Iterations)
	}
}
