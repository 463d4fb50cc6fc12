package core_test

import (
	"testing"

	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestReductionsWithNaN checks the examples: a NaN anywhere makes a
// reduction NaN, and the mean of finite values is finite when it can be.
func TestReductionsWithNaN(t *testing.T) {
	_, out := kmltest.Run(t, `print(median([1, 2, 0/0, 4]), median([0/0, 1, 2]), quantile([5, 0/0, 1], [0.1, 0.9]))
print(min([1/0, 0/0]), max([0/0, 1/0]), median([[1, 0/0], [2, 3], [4, 5]]))
print(mean([1e308, 1e308]), sum([1e308, 1e308, -1e308]), var([1e308, 1e308]), sum([1e308, 1e308, -1/0]))
`)
	want := "NaN NaN [NaN, NaN]\nNaN NaN [2, NaN]\n1e+308 1e+308 0 -Inf\n"
	if out.String() != want {
		t.Errorf("got\n%swant\n%s", out, want)
	}
}
