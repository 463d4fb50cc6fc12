package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/lang/model"
)

// replayWalkAgree evaluates d (replaying) and w (walking) at seeded points
// and fails on any difference in the value or the gradient, to the bit.
func replayWalkAgree(t *testing.T, name string, d, w *model.Density, dim int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 15))
	g, h := make([]float64, dim), make([]float64, dim)
	for k := range 8 {
		q := make([]float64, dim)
		for i := range q {
			q[i] = r.NormFloat64()
		}
		a, errA := d.LogDensity(g, q)
		b, errB := w.LogDensity(h, q)
		if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
			t.Fatalf("%s point %d: replay error %v, walk error %v", name, k, errA, errB)
		}
		if math.Float64bits(a) != math.Float64bits(b) {
			t.Fatalf("%s point %d: replay %v, walk %v", name, k, a, b)
		}
		for i := range g {
			if math.Float64bits(g[i]) != math.Float64bits(h[i]) {
				t.Fatalf("%s point %d: gradient replayed %v, walked %v", name, k, g, h)
			}
		}
		if v, _ := d.Value(q); math.Float64bits(v) != math.Float64bits(b) {
			t.Fatalf("%s point %d: Value replayed %v, walk %v", name, k, v, b)
		}
	}
}

// Every shape of the gradient benchmark replays, and its replay is the walk.
func TestReplayShapes(t *testing.T) {
	for _, s := range gradShapes {
		d, dim := shapeDensity(t, s, false)
		w, _ := shapeDensity(t, s, true)
		replayWalkAgree(t, s.name, d, w, dim, 1)
		if !d.Replaying() {
			t.Errorf("%s: not replayed", s.name)
		}
		if w.Replaying() {
			t.Errorf("%s: NoReplay replays", s.name)
		}
	}
}
