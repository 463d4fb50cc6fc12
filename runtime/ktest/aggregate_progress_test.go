package ktest

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/progress"
)

// sinkContext is a context whose reporter hands every drawing at once (no
// delay, throttle or ticker) to *events, for the computation name.
func sinkContext(name string, events *[]progress.Event) context.Context {
	r := progress.New(nil)
	r.Delay, r.Every, r.Tick = 0, 0, 0
	r.Sink = func(e progress.Event) { *events = append(*events, e) }
	return progress.With(context.Background(), r, name)
}

// normals is an n×1 sample of N(shift, 1) from its own seeded stream.
func normals(n int, shift float64, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, shift+rng.NormFloat64())
	}
	return x
}

// TestAggregateProgressIsOneLine: the aggregate tests draw one line from
// their start, on which every kernel's permutations count (before, each
// kernel started a line of its own, drawn only once a kernel's first
// block of permutations had ended): the first drawing comes before the
// end, and the count ends exactly at kernels × permutations (MMD) or at
// the permutations shared by the pairs (HSIC), the samples as given not
// counted.
func TestAggregateProgressIsOneLine(t *testing.T) {
	const perms, bw = 320, 3
	x, y := normals(40, 0, 1), normals(40, 0.5, 2)
	var mmd []progress.Event
	if _, err := MMDAggregateTest(sinkContext("mmd_test", &mmd), x, y, Settings{Seed: 1, Permutations: perms, Bandwidths: bw}); err != nil {
		t.Fatal(err)
	}
	var hsic []progress.Event
	if _, err := HSICAggregateTest(sinkContext("hsic_test", &hsic), x, y, Permutation, Settings{Seed: 1, Permutations: perms, Bandwidths: bw}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		events []progress.Event
		total  int64
	}{{"mmd_test", mmd, bw * perms}, {"hsic_test", hsic, perms}} {
		if len(c.events) < 3 {
			t.Fatalf("%s: %d events", c.name, len(c.events))
		}
		first, end := c.events[0], c.events[len(c.events)-1]
		last := c.events[len(c.events)-2]
		for _, e := range c.events {
			if e.Name != c.name || e.What != "permutations" || e.Total != c.total {
				t.Fatalf("%s: event %+v, want one line of %d permutations", c.name, e, c.total)
			}
		}
		if first.Done >= c.total || last.Done != c.total || !end.End {
			t.Errorf("%s: first %+v, last %+v, end %+v", c.name, first, last, end)
		}
	}
}
