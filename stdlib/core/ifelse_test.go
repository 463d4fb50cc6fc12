package core_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestIfElse: element-wise selection against a loop over the elements,
// strings for group names, a scalar condition, the gradient of a model
// that selects parameters by data (finite differences) and by a parameter
// (the condition then depends on the point), and the errors.
func TestIfElse(t *testing.T) {
	in, out := kmltest.Run(t, `let x = [-2, -1, 0, 1.5, 2]
let a = ifelse(x > 0, x, 0)
let b = ifelse(x >= 1, x * 10, [5, 4, 3, 2, 1])
print(ifelse(x > 0, "pos", "neg"))
print(ifelse(true, 1, 2), ifelse(0, 1, 2))
let y = [1, 2.2, 0.5, 3.1, 2]
model m {
  p ~ normal(0, 5)
  q ~ normal(0, 5)
  y ~ normal(ifelse(x > 0, p, q), 1)
}
model c {
  p ~ normal(0, 5)
  y ~ normal(ifelse(x > p, x, p), 1)
}
`)
	x := []float64{-2, -1, 0, 1.5, 2}
	alt := []float64{5, 4, 3, 2, 1}
	a := kmltest.Lookup[*eval.Vec](t, in, "a").Data
	b := kmltest.Lookup[*eval.Vec](t, in, "b").Data
	for i, xi := range x {
		wantA, wantB := 0.0, alt[i]
		if xi > 0 {
			wantA = xi
		}
		if xi >= 1 {
			wantB = 10 * xi
		}
		if a[i] != wantA || b[i] != wantB {
			t.Errorf("element %d: %v and %v, want %v and %v", i+1, a[i], b[i], wantA, wantB)
		}
	}
	if got, want := out.String(), "[\"neg\", \"neg\", \"neg\", \"pos\", \"pos\"]\n1 2\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.3, -0.7}, []float64{2, 1})
	// Points away from the kinks x = p.
	kmltest.CheckModelGradient(t, in, "c", 1e-6, []float64{0.7}, []float64{-1.3}, []float64{1.8})
	for _, c := range []struct{ src, want string }{
		{`ifelse([1, 0], [1, 2, 3], 0)`, "t.kml:1:16: error: ifelse: yes has 3 elements and cond 2; they must match, or yes must be a number"},
		{`ifelse([1, 0], "a", 2)`, "yes and no must both be strings"},
		{`ifelse("x", 1, 2)`, "cond must be true or false, a number or a vector"},
		{`ifelse([1, 0 / 0], 1, 2)`, "cond's element 2 is NaN"},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}
