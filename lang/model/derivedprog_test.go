package model_test

import (
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/linalg"
)

// derivedModels have derived quantities the program replays: GARCH's
// variance recursion, a hierarchical model's group means, and a vector
// computed through a derived matrix of parameters.
var derivedModels = []gradShape{
	garchShape(60),
	{"hier8-theta", `model m {
  mu ~ normal(0, 5)
  tau ~ half_cauchy(5)
  eta[8] ~ normal(0, 1)
  theta = mu + tau * eta
  shrink = tau / (tau + 10)
  y ~ normal(theta, sigma)
}`, func(*rand.Rand) map[string]eval.Value {
		return map[string]eval.Value{
			"y":     &eval.Vec{Data: []float64{28, 8, -3, 7, -1, 1, 18, 12}},
			"sigma": &eval.Vec{Data: []float64{15, 10, 16, 11, 9, 11, 10, 18}},
		}
	}},
	{"matrix", `model m {
  s ~ gamma(2, 2)
  r ~ uniform(-0.5, 0.5)
  b[2] ~ normal(0, 1)
  S = [[s, r * s], [r * s, s]]
  v = S @ b
  total = sum(v) + n
  y ~ normal(X @ v, 1)
}`, func(r *rand.Rand) map[string]eval.Value {
		x, y := regression(r, 30, 2)
		return map[string]eval.Value{"X": x, "y": y, "n": eval.Num(3)}
	}},
}

// Reading the derived quantities from the program allocates nothing.
func TestDerivedRowAllocs(t *testing.T) {
	for _, s := range derivedModels {
		d, dim := shapeDensity(t, s, false)
		q := make([]float64, dim)
		for i := range q {
			q[i] = 0.1 * float64(i%3)
		}
		if _, err := d.Value(q); err != nil {
			t.Fatal(err)
		}
		n, row, ok := model.DerivedRowAllocs(d, q, func(f func()) float64 { return testing.AllocsPerRun(20, f) })
		if !ok {
			t.Fatalf("%s: the derived quantities are not replayed (%s), or the parameters differ from Constrain's", s.name, d.ReplayStatus())
		}
		if n != 0 {
			t.Errorf("%s: %v allocations per derived row, want 0", s.name, n)
		}
		walked, _ := d.Derived(q)
		var flat []float64
		for _, v := range walked {
			flat = append(flat, v.Values...)
		}
		if !linalg.SameBits(row, flat) {
			t.Errorf("%s: row %v, walked %v", s.name, row, flat)
		}
	}
}

// A replayed gradient allocates nothing: an iterate recurrence (GARCH)
// and a small hierarchical model (eight schools, non-centred).
func TestReplayGradientAllocs(t *testing.T) {
	for _, s := range []gradShape{garchShape(200), gradShapes[1]} {
		d, dim := shapeDensity(t, s, false)
		q, g := make([]float64, dim), make([]float64, dim)
		for i := range q {
			q[i] = 0.1 * float64(i%3)
		}
		if _, err := d.LogDensity(g, q); err != nil || !d.Replaying() {
			t.Fatalf("%s: %v, %s", s.name, err, d.ReplayStatus())
		}
		n := testing.AllocsPerRun(50, func() {
			if _, err := d.LogDensity(g, q); err != nil {
				t.Fatal(err)
			}
		})
		if n != 0 {
			t.Errorf("%s: %v allocations per replayed gradient, want 0", s.name, n)
		}
	}
}
