package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLastEval: the memo answers only an evaluation at the same
// parameters, inputs and observations to the bit (a copy of the inputs
// with the same numbers counts as the same), copies the partials out, and
// keeps no value that is not finite; a nil memo (a sampler's Density,
// model.Eval.Local's nil) never answers.
func TestLastEval(t *testing.T) {
	xs := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	y := []float64{1, -1, 1}
	x := []float64{0.5, 2}
	m := &lastEval{}
	d := make([]float64, 2)
	if _, ok := m.get(x, d, xs, y); ok {
		t.Fatal("an empty memo answered")
	}
	m.put(x, []float64{3, 4}, xs, y, -7.5)
	if v, ok := m.get(x, d, xs, y); !ok || v != -7.5 || d[0] != 3 || d[1] != 4 {
		t.Errorf("same point: %v %v %v", v, ok, d)
	}
	same := mat.DenseCopyOf(xs)
	if _, ok := m.get(x, d, same, y); !ok {
		t.Error("a copy of the same inputs missed")
	}
	next := math.Nextafter(0.5, 1)
	moved := mat.DenseCopyOf(xs)
	moved.Set(2, 1, 6.000000001)
	for name, c := range map[string]func() bool{
		"parameter one ulp away": func() bool { _, ok := m.get([]float64{next, 2}, d, xs, y); return ok },
		"another label":          func() bool { _, ok := m.get(x, d, xs, []float64{1, 1, 1}); return ok },
		"another input":          func() bool { _, ok := m.get(x, d, moved, y); return ok },
		"fewer partials":         func() bool { _, ok := m.get(x, d[:1], xs, y); return ok },
	} {
		if c() {
			t.Errorf("%s: the memo answered", name)
		}
	}
	m.put(x, d, xs, y, math.NaN())
	if _, ok := m.get(x, d, xs, y); ok {
		t.Error("a NaN was kept")
	}
	var none *lastEval
	none.put(x, d, xs, y, 1)
	if _, ok := none.get(x, d, xs, y); ok {
		t.Error("a nil memo answered")
	}
}
