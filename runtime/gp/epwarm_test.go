package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// TestEPRankOne: after a sweep of EP's blocked rank-one updates (blocks
// of 32, the last one partial; the pending updates corrected on every
// column read, Σ's upper triangle updated by blas3.Dgemmt) that triangle
// equals (K⁻¹ + T̃)⁻¹ computed densely from the updated sites to 10⁻⁹ of
// the largest |Σ_ij|; for the first sweep (from Σ = K) and the second
// (from the recomputed posterior), for the logistic and the Student-t, at
// n = 9 (one block, Dgemmt's direct sums), 40, 75 and 130.
func TestEPRankOne(t *testing.T) {
	for _, n := range []int{9, 40, 75, 130} {
		testEPRankOne(t, n)
	}
}

func testEPRankOne(t *testing.T, n int) {
	for _, l := range []Lik{{Kind: Logit}, {Kind: StudentT, Params: []float64{3.5, 0.3}}} {
		k, x, y := smallProblem(t, n, l)
		K, _ := kernels.Gram(k, x)
		for i := 0; i < n; i++ {
			K.SetSym(i, i, K.At(i, i)+0.05) // a K⁻¹ to compare with
		}
		tau, nu, mu := make([]float64, n), make([]float64, n), make([]float64, n)
		sigma := fullSym(K)
		w := newEPSweeper(n)
		for sweep := 1; sweep <= 2; sweep++ {
			if _, err := w.sweep(y, l, 1, tau, nu, sigma); err != nil {
				t.Fatal(err)
			}
			w.flush(sigma)
			var ki mat.SymDense
			var ch mat.Cholesky
			if !ch.Factorize(K) {
				t.Fatal("K is not positive definite")
			}
			if err := ch.InverseTo(&ki); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < n; i++ {
				ki.SetSym(i, i, ki.At(i, i)+tau[i])
			}
			var want mat.Dense
			if err := want.Inverse(&ki); err != nil {
				t.Fatal(err)
			}
			scale, worst := 0.0, 0.0
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					scale = math.Max(scale, math.Abs(want.At(i, j)))
				}
			}
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ { // the upper triangle, which the updates keep
					worst = math.Max(worst, math.Abs(sigma[i*n+j]-want.At(i, j)))
				}
			}
			if !(worst <= 1e-9*scale) {
				t.Errorf("n = %d, kind %d, sweep %d: Σ off the dense (K⁻¹ + T̃)⁻¹ by %.2e (largest |Σ_ij| %.3g)", n, l.Kind, sweep, worst, scale)
			}
			t.Logf("n = %d, kind %d, sweep %d: largest difference %.2e of %.3g", n, l.Kind, sweep, worst, scale)
			if _, _, err := epPosterior(K, tau, nu, sigma, mu, nil, false); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestEPWarm: a sequence of fits by one EPWarm, as an optimiser makes
// them (the amplitude and length scale moving in small steps, then a jump
// to a far smaller amplitude), gives each time the cold EP's log marginal,
// gradient matrix and α to 10⁻⁸; starts warm on the small steps; a fresh
// EPWarm given the same sequence reproduces every number to the bit; and
// sites fitted to the opposite labels are not used.
func TestEPWarm(t *testing.T) {
	l := Lik{Kind: Logit}
	_, x, y := smallProblem(t, 40, l)
	steps := [][2]float64{{1, 2}, {1.1, 2.3}, {1.15, 2.6}, {1.2, 2.5}, {0.5, 1e-3}}
	run := func() []*Posterior {
		w := &EPWarm{}
		var out []*Posterior
		for i, st := range steps {
			rbf, _ := kernels.NewRBF([]float64{st[0]})
			k, _ := kernels.NewScaled(st[1], rbf)
			K, _ := kernels.Gram(k, x)
			warm0 := w.Warm
			p, err := w.Fit(K, y, l, Needs{Gradient: true, Predictive: true})
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && i < 4 && w.Warm != warm0+1 {
				t.Errorf("step %d (ℓ %g, a %g): started from zero after a small step", i, st[0], st[1])
			}
			cold, err := EP{}.Fit(K, y, l, Needs{Gradient: true, Predictive: true})
			if err != nil {
				t.Fatal(err)
			}
			samePosterior(t, i, p, cold, 1e-8)
			t.Logf("step %d (ℓ %g, a %g): %d sweeps warm (%d warm starts so far), %d cold", i, st[0], st[1], p.Iterations, w.Warm, cold.Iterations)
			out = append(out, p)
		}
		return out
	}
	a, b := run(), run()
	// Sites fitted to the opposite labels give a log marginal below the
	// prior's: GPML's rule starts from zero.
	w := &EPWarm{}
	rbf, _ := kernels.NewRBF([]float64{1})
	k, _ := kernels.NewScaled(2, rbf)
	K, _ := kernels.Gram(k, x)
	neg := make([]float64, len(y))
	for i := range y {
		neg[i] = -y[i]
	}
	for _, yy := range [][]float64{neg, y} {
		if _, err := w.Fit(K, yy, l, Needs{}); err != nil {
			t.Fatal(err)
		}
	}
	if w.Cold != 2 || w.Warm != 0 {
		t.Errorf("opposite labels: %d warm and %d cold starts, want 0 and 2", w.Warm, w.Cold)
	}
	for i := range a {
		if a[i].LogZ != b[i].LogZ || !mat.Equal(a[i].W, b[i].W) {
			t.Errorf("step %d: a second run from a fresh EPWarm differs: log Z %.17g, %.17g", i, a[i].LogZ, b[i].LogZ)
		}
	}
}
