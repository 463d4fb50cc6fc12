package bke_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	rbke "github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestBKESumKernel: x ~ bke(c1 * rbf(l1) + c2 * rbf(l2), ...) is
// runtime/bke's SumLogDensity (at fixed values, a likelihood-only logp),
// and its gradient through the model (every c, ℓ — ARD included — and τ²
// as parameters) agrees with finite differences.
func TestBKESumKernel(t *testing.T) {
	in, _ := kmltest.Run(t, `
let x = cbind(draw(normal(0, 1), 40, seed: 1), draw(normal(0, 2), 40, seed: 2))
let z = landmarks(x, 6, seed: 3)
model fixed {
  x ~ bke(0.7 * rbf(0.4) + 1.3 * rbf([1.5, 0.8]), noise: 0.5, landmarks: z, prior: "lebesgue")
}
let lp = logp(fixed, {})
model m {
  c ~ gamma(2, 2)
  l1 ~ gamma(2, 2)
  l2[2] ~ gamma(2, 2)
  tau2 ~ gamma(2, 2)
  x ~ bke(c * rbf(l1) + rbf(l2), noise: tau2, landmarks: z)
}
`)
	x := kmltest.Lookup[*eval.Mat](t, in, "x").M
	z := kmltest.Lookup[*eval.Mat](t, in, "z").M
	md, err := rbke.New(x, z, rbke.Options{Prior: rbke.Lebesgue})
	if err != nil {
		t.Fatal(err)
	}
	want, err := md.SumLogDensity(rbke.SumHyper{Terms: []rbke.SumTerm{{Amp: 0.7, Ell: []float64{0.4}}, {Amp: 1.3, Ell: []float64{1.5, 0.8}}}, Tau2: 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := float64(kmltest.Lookup[eval.Num](t, in, "lp")); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("logp %.15g, SumLogDensity %.15g", got, want)
	}
	kmltest.CheckModelGradient(t, in, "m", 1e-5, []float64{0.2, -0.4, 0.3, -0.1, 0.1})
}

// Products and other kernels are refused with what bke accepts; a sum with
// the published variant, and embedding of a model whose kernel is a sum,
// say what to use instead; a zero amplitude (which the runtime would read
// as 1) is refused, in a sum or alone.
func TestBKESumRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`x ~ bke(rbf(0.4) * rbf(1), noise: 1, landmarks: z)`, "or a sum of them"},
		{`x ~ bke(rbf(0.4) + matern32(1), noise: 1, landmarks: z)`, "not for products or other kernels"},
		{`x ~ bke(rbf(0.4) + rbf(1), noise: 1, landmarks: z, variant: "published")`, `a sum of kernels takes variant: "derived"`},
		{`x ~ bke(0 * rbf(0.4) + rbf(1), noise: 1, landmarks: z)`, "bke needs a positive amplitude c in c * rbf(ell), got 0"},
		{`x ~ bke(0 * rbf(0.4), noise: 1, landmarks: z)`, "bke needs a positive amplitude c in c * rbf(ell), got 0"},
	} {
		kmltest.ExpectError(t, kmltest.BKEData+"model m {\n  "+c.src+"\n}\nlogp(m, {})\n", c.want)
	}
	kmltest.ExpectError(t, kmltest.BKEData+`
model m {
  x ~ bke(rbf(0.4) + rbf(1), noise: 1, landmarks: z)
}
embedding(m, x, linspace(-2, 2, 5), values: {})
`, "use one component for embedding")
}
