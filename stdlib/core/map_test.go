package core_test

import (
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	_ "github.com/kml-lang/kml/stdlib"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestMap: results in order, a vector when all are numbers, a list
// otherwise; a matrix is mapped by rows.
func TestMap(t *testing.T) {
	in, out := kmltest.Run(t, `fn sq(x) = x * x
fn bang(s) = s + "!"
print(map([1, 2, 3], sq))
print(map(["a", "b"], bang))
print(map([], sq))
let mus = map([[1, 2, 3], [10, 11, 12]], sum)
`)
	if got, want := out.String(), "[1, 4, 9]\n[\"a!\", \"b!\"]\n[]\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	mus := kmltest.Lookup[*eval.Vec](t, in, "mus")
	for i, want := range []float64{6, 33} {
		if d := mus.Data[i] - want; d*d > 1e-12 {
			t.Errorf("row %d sums to %v, want %v", i+1, mus.Data[i], want)
		}
	}
}

func TestMapErrors(t *testing.T) {
	kmltest.ExpectError(t, "map([1, 2], 3)", "t.kml:1:13: error: map: f must be a function of one element, got number")
	kmltest.ExpectError(t, "fn f(x) = x\nmap({a: 1}, f)", "t.kml:2:5: error: map: xs must be a vector, a matrix or a list, got record")
	kmltest.ExpectError(t, "fn f(x) = x + \"s\"\nmap([1], f)", "cannot apply + to number and string")
}
