package format

import "testing"

// TestModelDataArguments: `model m(x, y) { ... }` prints its arguments
// after the name, on one line however they were written, keeps comments,
// and prints again unchanged.
func TestModelDataArguments(t *testing.T) {
	src := "model m(x,\n   y ,) {   # data in\n  a ~ normal(0,1)\n  y~normal(a*x,1)\n}\nlet b = m(x: [1], y: [2])\n"
	want := "model m(x, y) { # data in\n  a ~ normal(0, 1)\n  y ~ normal(a * x, 1)\n}\nlet b = m(x: [1], y: [2])\n"
	out, err := Source("t.kml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	checkSource(t, "t.kml", src)
}
