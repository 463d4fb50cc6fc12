package model_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
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

// sampleShape samples a shape's model (2 chains × (100 + 50)) on a thread
// of its own, returning the posterior and a Density to walk with.
func sampleShape(t *testing.T, s gradShape, seed uint64) (*model.Posterior, *model.Density) {
	t.Helper()
	in := eval.New(eval.Options{})
	for k, v := range s.data(rand.New(rand.NewPCG(seed, 2))) {
		if err := in.Define(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := in.Eval("shape.kml", s.src); err != nil {
		t.Fatal(err)
	}
	m, _ := in.Lookup("m")
	c, err := model.CompileFor(in, m.(*eval.Model), nil, all)
	if err != nil {
		t.Fatal(err)
	}
	th := in.NewThread(context.Background())
	post, err := model.Sample(th.Context(), th, c, hmc.Settings{Chains: 2, Warmup: 100, Draws: 50, Seed: seed, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return post, c.NewDensityFor(in)
}

// Derived quantities (and GARCH's constrained parameters, whose support
// moves) read from the replayed program are the walked ones to the bit, at
// every draw, and every draw was replayed.
func TestDerivedReplayedIsWalked(t *testing.T) {
	for k, s := range derivedModels {
		var replayed, walked atomic.Int64
		restore := model.SetSampleClock(time.Now, func(r bool) {
			if r {
				replayed.Add(1)
			} else {
				walked.Add(1)
			}
		})
		post, w := sampleShape(t, s, uint64(40+k))
		restore()
		if replayed.Load() != 100 || walked.Load() != 0 {
			t.Errorf("%s: %d draws replayed, %d walked; want 100 and 0", s.name, replayed.Load(), walked.Load())
		}
		if len(post.Derived) == 0 {
			t.Fatalf("%s: no derived quantities recorded", s.name)
		}
		for c, ch := range post.Result.Chains {
			for i, q := range ch.Draws {
				vals, err := w.Derived(q)
				if err != nil {
					t.Fatal(err)
				}
				row := post.Values[c][i]
				if want := post.Comp.Constrain(nil, q); !sameBits(row[:len(want)], want) {
					t.Fatalf("%s chain %d draw %d: parameters %v, constrained %v", s.name, c, i, row[:len(want)], want)
				}
				for j, dc := range post.Derived {
					got := row[dc.Off : dc.Off+max(dc.Size, 1)]
					if vals[j].Name != dc.Name || !sameBits(got, vals[j].Values) {
						t.Fatalf("%s chain %d draw %d: %s = %v from the program, %v walked", s.name, c, i, dc.Name, got, vals[j].Values)
					}
				}
			}
		}
	}
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// A fit's seconds cover its derived quantities: with a clock that reads
// the number of derived rows computed so far, the seconds are all of them.
func TestSecondsCoverDerived(t *testing.T) {
	var rows atomic.Int64
	restore := model.SetSampleClock(func() time.Time { return time.Unix(rows.Load(), 0) },
		func(bool) { rows.Add(1) })
	defer restore()
	post, _ := sampleShape(t, garchShape(40), 7)
	if got := post.Summary.Seconds; got != 100 {
		t.Errorf("seconds = %v with one second per derived row; want 100 (2 chains × 50 draws)", got)
	}
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
		if !sameBits(row, flat) {
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
