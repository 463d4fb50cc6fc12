package dists_test

import (
	"math"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestCategoricalLogit: the log mass is log softmax(beta)_y, logp of a model
// sums it over the observations, the gradient in the log-odds matches finite
// differences, and seeded draws have the stated frequencies.
func TestCategoricalLogit(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [1, 3, 3, 2, 3, 1]
let l = logpdf(categorical_logit([0.2, -1, 1.5]), [1, 2, 3, 4])
model m {
  b[3] ~ normal(0, 1)
  y ~ categorical_logit(b)
}
let lp = logp(m, {b: [0.2, -1, 1.5]})
let d = draw(categorical_logit([0, log(2), log(3)]), 60000, seed: 3)
`)
	z := math.Exp(0.2) + math.Exp(-1) + math.Exp(1.5)
	l := kmltest.Lookup[*eval.Vec](t, in, "l").Data
	for k, b := range []float64{0.2, -1, 1.5} {
		if want := b - math.Log(z); math.Abs(l[k]-want) > 1e-12 {
			t.Errorf("logpdf at %d = %v, want %v", k+1, l[k], want)
		}
	}
	if !math.IsInf(l[3], -1) {
		t.Errorf("logpdf outside the categories = %v", l[3])
	}
	want := 2*(0.2-math.Log(z)) + 3*(1.5-math.Log(z)) + (-1 - math.Log(z)) // the counts of y
	prior := -1.5*math.Log(2*math.Pi) - 0.5*(0.04+1+2.25)
	if lp := float64(kmltest.Lookup[eval.Num](t, in, "lp")); math.Abs(lp-(want+prior)) > 1e-10 {
		t.Errorf("logp = %v, want %v", lp, want+prior)
	}
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.2, -1, 1.5}, []float64{-0.3, 0.4, 0})
	d := kmltest.Lookup[*eval.Vec](t, in, "d").Data
	counts := make([]float64, 3)
	for _, c := range d {
		counts[int(c)-1]++
	}
	for k, p := range []float64{1.0 / 6, 2.0 / 6, 3.0 / 6} {
		if f, se := counts[k]/60000, math.Sqrt(p*(1-p)/60000); math.Abs(f-p) > 4*se {
			t.Errorf("category %d drawn with frequency %v, want %v ± %v", k+1, f, p, se)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"print(categorical_logit(1))", "beta must be a vector of log-odds"},
		{"model m {\n  a ~ categorical_logit([0, 1])\n}\nprint(logp(m, {a: 1}))", "discrete prior categorical_logit"},
		{"let y = [1, 5]\nmodel m {\n  b[2] ~ normal(0, 1)\n  y ~ categorical_logit(b)\n}\nprint(logp(m, {b: [0, 0]}))", "4:5: error: y has element 2 = 5, not a category from 1 to 2"},
	} {
		got := kmltest.RunIn(t, dir, c.src)
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}
