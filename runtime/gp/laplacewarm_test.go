package gp

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestLaplaceWarm: a sequence of fits by one LaplaceWarm, as an optimiser
// makes them (the length scale and amplitude moving in small steps, then
// a jump to a far larger amplitude), gives each time the cold fit's log
// marginal, gradient weights W, α and likelihood gradient to 10⁻⁸; starts
// warm on the small steps and takes fewer Newton steps there; back near
// the earlier points after the jump, starts from their mode, not the far
// one; a second
// fit at the same K returns the first's numbers to the bit, in no Newton
// step when the first passed the gradient test (what lets a replay agree
// with its walk); a fresh LaplaceWarm
// given the same sequence reproduces every number to the bit; a mode
// fitted to the opposite labels is not used; and Student-t observations,
// whose Ψ can have several maxima, always start from zero.
func TestLaplaceWarm(t *testing.T) {
	l := Lik{Kind: Logit}
	_, x, y := smallProblem(t, 40, l)
	steps := [][2]float64{{1, 2}, {1.1, 2.3}, {1.15, 2.6}, {1.2, 2.5}, {0.7, 400}, {1.2, 2.5}}
	needs := Needs{Gradient: true, Predictive: true}
	run := func() []*Posterior {
		w := &LaplaceWarm{}
		var out []*Posterior
		for i, st := range steps {
			rbf, _ := kernels.NewRBF([]float64{st[0]})
			k, _ := kernels.NewScaled(st[1], rbf)
			K, _ := kernels.Gram(k, x)
			warm0 := w.Warm
			p, err := w.Fit(K, y, l, needs)
			if err != nil {
				t.Fatal(err)
			}
			cold, err := LaplaceApprox{}.Fit(K, y, l, needs)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && i < 4 {
				if w.Warm != warm0+1 {
					t.Errorf("step %d (ℓ %g, a %g): started from zero after a small step", i, st[0], st[1])
				}
				if p.Iterations >= cold.Iterations {
					t.Errorf("step %d: %d Newton steps warm, %d cold", i, p.Iterations, cold.Iterations)
				}
			}
			if i == 5 && (w.Warm != warm0+1 || p.Iterations != 0) {
				// Back at step 3's K after the far point: from step 3's
				// mode (the one before the last), a fixed point there.
				t.Errorf("step 5: back at step 3's kernel matrix, %d Newton steps (warm %v): the mode before the far point was not the start", p.Iterations, w.Warm == warm0+1)
			}
			samePosterior(t, i, p, cold, 1e-8)
			// Again at the same K: the same numbers to the bit, in no
			// Newton step when the first fit's mode passed the gradient
			// test (the steps 0-3 here; step 4's amplitude ends where Ψ
			// stops rising at working precision, and the fit repeats
			// its steps from the same start).
			fixed := w.fixed
			if i != 4 && !fixed {
				t.Errorf("step %d: the mode did not pass Newton's gradient test", i)
			}
			again, err := w.Fit(K, y, l, needs)
			if err != nil {
				t.Fatal(err)
			}
			if (fixed && again.Iterations != 0) || (!fixed && again.Iterations != p.Iterations) || math.Float64bits(again.LogZ) != math.Float64bits(p.LogZ) {
				t.Errorf("step %d: a second fit at the same K took %d Newton steps (the first %d) and gave log q %.17g against %.17g", i, again.Iterations, p.Iterations, again.LogZ, p.LogZ)
			}
			for a := range p.Alpha {
				for b := a; b < len(p.Alpha); b++ {
					if math.Float64bits(again.W.At(a, b)) != math.Float64bits(p.W.At(a, b)) {
						t.Fatalf("step %d: a second fit at the same K changed W[%d, %d]", i, a, b)
					}
				}
			}
			t.Logf("step %d (ℓ %g, a %g): %d Newton steps warm (%d warm starts so far), %d cold", i, st[0], st[1], p.Iterations, w.Warm, cold.Iterations)
			out = append(out, p)
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if math.Float64bits(a[i].LogZ) != math.Float64bits(b[i].LogZ) {
			t.Errorf("step %d: a fresh LaplaceWarm gave log q %.17g, the first %.17g", i, b[i].LogZ, a[i].LogZ)
		}
		for j := range a[i].Alpha {
			if math.Float64bits(a[i].Alpha[j]) != math.Float64bits(b[i].Alpha[j]) {
				t.Fatalf("step %d: a fresh LaplaceWarm gave another α[%d]", i, j)
			}
		}
	}
	// A mode fitted to the opposite labels gives Ψ below Ψ(0): GPML's rule
	// starts from zero.
	rbf, _ := kernels.NewRBF([]float64{1})
	k, _ := kernels.NewScaled(2, rbf)
	K, _ := kernels.Gram(k, x)
	neg := make([]float64, len(y))
	for i := range y {
		neg[i] = -y[i]
	}
	w := &LaplaceWarm{}
	for _, yy := range [][]float64{neg, y} {
		if _, err := w.Fit(K, yy, l, Needs{}); err != nil {
			t.Fatal(err)
		}
	}
	if w.Cold != 2 || w.Warm != 0 {
		t.Errorf("opposite labels: %d warm and %d cold starts, want 0 and 2", w.Warm, w.Cold)
	}
	// Student-t: cold every time, the same numbers as LaplaceApprox.
	st := Lik{Kind: StudentT, Params: []float64{4, 0.3}}
	_, xs, ys := smallProblem(t, 30, st)
	ks, _ := kernels.Gram(testKernel(t, 2), xs)
	ws := &LaplaceWarm{}
	for range 2 {
		p, err := ws.Fit(ks, ys, st, Needs{Gradient: true})
		if err != nil {
			t.Fatal(err)
		}
		c, err := LaplaceApprox{}.Fit(ks, ys, st, Needs{Gradient: true})
		if err != nil {
			t.Fatal(err)
		}
		if math.Float64bits(p.LogZ) != math.Float64bits(c.LogZ) {
			t.Errorf("Student-t: log q %.17g, cold %.17g", p.LogZ, c.LogZ)
		}
	}
	if ws.Warm != 0 || ws.Cold != 2 {
		t.Errorf("Student-t: %d warm and %d cold starts, want 0 and 2", ws.Warm, ws.Cold)
	}
}

// samePosterior checks a warm fit p against the cold fit at the same K
// (step i of a sequence): log marginal, α and the gradient weights W to
// tol (relative to max(1, |cold|) for α and W).
func samePosterior(t *testing.T, i int, p, cold *Posterior, tol float64) {
	t.Helper()
	if d := math.Abs(p.LogZ - cold.LogZ); !(d <= tol) {
		t.Errorf("step %d: log marginal warm %.12g, cold %.12g", i, p.LogZ, cold.LogZ)
	}
	for a := range p.Alpha {
		if d := math.Abs(p.Alpha[a] - cold.Alpha[a]); !(d <= tol*math.Max(1, math.Abs(cold.Alpha[a]))) {
			t.Errorf("step %d: α[%d] warm %.12g, cold %.12g", i, a, p.Alpha[a], cold.Alpha[a])
		}
		for b := a; b < len(p.Alpha); b++ {
			if d := math.Abs(p.W.At(a, b) - cold.W.At(a, b)); !(d <= tol*math.Max(1, math.Abs(cold.W.At(a, b)))) {
				t.Errorf("step %d: W[%d, %d] warm %.12g, cold %.12g", i, a, b, p.W.At(a, b), cold.W.At(a, b))
			}
		}
	}
}
