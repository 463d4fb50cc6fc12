package core_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestMap: results in order, a vector when all are numbers, a list
// otherwise; models made inside map are fitted one per data set.
func TestMap(t *testing.T) {
	in, out := kmltest.Run(t, `fn sq(x) = x * x
fn bang(s) = s + "!"
print(map([1, 2, 3], sq))
print(map(["a", "b"], bang))
print(map([], sq))
model m(y) {
  mu ~ normal(0, 10)
  y ~ normal(mu, 1)
}
fn fit(y) = optimize(m(y), seed: 1).mu
let mus = map([[1, 2, 3], [10, 11, 12]], fit)
`)
	if got, want := out.String(), "[1, 4, 9]\n[\"a!\", \"b!\"]\n[]\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	mus := kmltest.Lookup[*eval.Vec](t, in, "mus")
	// mu's MAP is Σy / (n + 1/100).
	for i, want := range []float64{6 / 3.01, 33 / 3.01} {
		if d := mus.Data[i] - want; d*d > 1e-12 {
			t.Errorf("mu %d = %v, want %v", i+1, mus.Data[i], want)
		}
	}
}

func TestMapErrors(t *testing.T) {
	kmltest.ExpectError(t, "map([1, 2], 3)", "t.kml:1:13: error: map: f must be a function of one element, got number")
	kmltest.ExpectError(t, "fn f(x) = x\nmap({a: 1}, f)", "t.kml:2:5: error: map: xs must be a vector, a matrix or a list, got record")
	kmltest.ExpectError(t, "fn f(x) = x + \"s\"\nmap([1], f)", "cannot apply + to number and string")
}
