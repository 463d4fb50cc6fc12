package core_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestTrigValues compares the trigonometric builtins with Go's math package,
// including atan2's broadcasting of a number against a vector.
func TestTrigValues(t *testing.T) {
	in, _ := kmltest.Run(t, `
let s = sin(0.7)
let c = cos(0.7)
let ta = tan(0.7)
let th = tanh(-0.4)
let a = atan2(-1, -2)
let av = atan2([1, -1, 0.5], 2)
let vs = sin([0.1, 0.2])
`)
	for name, want := range map[string]float64{
		"s": math.Sin(0.7), "c": math.Cos(0.7), "ta": math.Tan(0.7), "th": math.Tanh(-0.4), "a": math.Atan2(-1, -2),
	} {
		if got := float64(kmltest.Lookup[eval.Num](t, in, name)); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	av := kmltest.Lookup[*eval.Vec](t, in, "av").Data
	for i, y := range []float64{1, -1, 0.5} {
		if av[i] != math.Atan2(y, 2) {
			t.Errorf("av[%d] = %v, want %v", i, av[i], math.Atan2(y, 2))
		}
	}
	if vs := kmltest.Lookup[*eval.Vec](t, in, "vs").Data; vs[1] != math.Sin(0.2) {
		t.Errorf("sin([0.1, 0.2])[2] = %v", vs[1])
	}
}

// TestTrigGradient checks the derivatives of sin, cos, tan, tanh and atan2
// inside a model against central finite differences of the log density.
func TestTrigGradient(t *testing.T) {
	in, _ := kmltest.Run(t, `
let w = [0.3, -1.2, 2.0]
let y = [0.5, 0.1, -0.7]
model m {
  a ~ normal(0, 1)
  b ~ normal(0, 1)
  y ~ normal(sin(a * w) + cos(b * w) + tan(a / 3) + tanh(b * w) + atan2(a + w, b) + atan2(b, w) + atan2(a, 1.5), 1)
  y ~ normal(logit(0.3 + 0.4 * inv_logit(a * w)) + log_sum_exp(a * w + b) + 3 * softmax(b * w + a) - log_softmax(a * w), 1)
}
`)
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.2, -0.4}, []float64{-1.1, 0.9})
}

// TestLogitSoftmaxValues compares logit, inv_logit, log_sum_exp, softmax and
// log_softmax with direct computations, including arguments where the naive
// formulas overflow.
func TestLogitSoftmaxValues(t *testing.T) {
	in, _ := kmltest.Run(t, `
let l = logit(0.2)
let il = inv_logit([-800, 0, 2])
let big = log_sum_exp([1000, 1000])
let small = log_sum_exp([-1, 0.5, 2])
let s = softmax([1, 2, 3])
let ls = log_softmax([1, 2, 3])
`)
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-14*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("logit(0.2)", float64(kmltest.Lookup[eval.Num](t, in, "l")), math.Log(0.2/0.8))
	il := kmltest.Lookup[*eval.Vec](t, in, "il").Data
	near("inv_logit(-800)", il[0], 0)
	near("inv_logit(0)", il[1], 0.5)
	near("inv_logit(2)", il[2], 1/(1+math.Exp(-2)))
	near("log_sum_exp([1000, 1000])", float64(kmltest.Lookup[eval.Num](t, in, "big")), 1000+math.Log(2))
	near("log_sum_exp([-1, 0.5, 2])", float64(kmltest.Lookup[eval.Num](t, in, "small")), math.Log(math.Exp(-1)+math.Exp(0.5)+math.Exp(2)))
	z := math.Exp(1) + math.Exp(2) + math.Exp(3)
	s := kmltest.Lookup[*eval.Vec](t, in, "s").Data
	ls := kmltest.Lookup[*eval.Vec](t, in, "ls").Data
	for i := range s {
		near("softmax", s[i], math.Exp(float64(i+1))/z)
		near("log_softmax", ls[i], float64(i+1)-math.Log(z))
	}
}
