package gp_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// knownNoiseData is gpData's regression with one known noise sd per
// observation.
const knownNoiseData = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4]
let s = [0.1, 0.3, 0.05, 0.2, 0.5, 0.1, 0.25, 0.15]
model kn {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, s)
}
let v = {ell: [0.8, 1.3], a: 1.5}
let l = loglik(kn, v)
let p = predict(kn, [[0.3, 0.2], [2.0, -1.0]], values: v)
`

// TestGPKnownNoise: y ~ normal(f, s) with a vector s of known sds is the
// exact log N(y | 0, K + diag(s²)), and predict's mean and variance are
// k*ᵀC⁻¹y and k** − k*ᵀC⁻¹k*, all formed densely here; the gradient in
// the kernel's parameters matches finite differences.
func TestGPKnownNoise(t *testing.T) {
	in, _ := kmltest.Run(t, knownNoiseData)
	x := mat.DenseCopyOf(kmltest.Lookup[*eval.Mat](t, in, "x").M)
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	s := kmltest.Lookup[*eval.Vec](t, in, "s").Data
	rbf, _ := kernels.NewRBF([]float64{0.8, 1.3})
	k, _ := kernels.NewScaled(1.5, rbf)
	n := len(y)
	c := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			v := k.Eval(x.RawRowView(i), x.RawRowView(j))
			if i == j {
				v += s[i] * s[i]
			}
			c.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		t.Fatal(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(c)
	want := -0.5*mat.Inner(yv, &inv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if got := float64(kmltest.Lookup[eval.Num](t, in, "l")); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("loglik %.12g, dense %.12g", got, want)
	}
	p := kmltest.Lookup[*eval.Record](t, in, "p")
	fm := kmltest.Field(t, p, "f_mean").(*eval.Vec).Data
	fv := kmltest.Field(t, p, "f_var").(*eval.Vec).Data
	yvar := kmltest.Field(t, p, "y_var").(*eval.Vec).Data
	for j, xs := range [][]float64{{0.3, 0.2}, {2.0, -1.0}} {
		ks := mat.NewVecDense(n, nil)
		for i := range n {
			ks.SetVec(i, k.Eval(x.RawRowView(i), xs))
		}
		wm := mat.Inner(ks, &inv, yv)
		wv := k.Eval(xs, xs) - mat.Inner(ks, &inv, ks)
		if math.Abs(fm[j]-wm) > 1e-9 || math.Abs(fv[j]-wv) > 1e-9 || yvar[j] != fv[j] {
			t.Errorf("point %d: f_mean %.10g f_var %.10g y_var %.10g, dense %.10g %.10g", j, fm[j], fv[j], yvar[j], wm, wv)
		}
	}
	kmltest.CheckModelGradient(t, in, "kn", 1e-5, []float64{-0.2, 0.3, 0.4}, []float64{0.5, -0.4, -0.3})
}

// TestGPKnownNoiseErrors: a sigma vector of the wrong length, with a
// non-positive entry (data or parameters), on the Nyström path or with a
// MAP objective is refused with a message that says why.
func TestGPKnownNoiseErrors(t *testing.T) {
	const head = "let x = [[0], [1], [2]]\nlet y = [0.1, 0.5, 0.2]\n"
	for _, c := range []struct{ src, want string }{
		{head + "model m {\n  f ~ gp(x, rbf(1))\n  y ~ normal(f, [0.1, 0.2])\n}\nloglik(m, {})", "normal's sigma has 2 standard deviations for 3 observations"},
		{head + "model m {\n  f ~ gp(x, rbf(1))\n  y ~ normal(f, [0.1, 0, 0.2])\n}\nloglik(m, {})", "normal's sigma[2] is 0; noise standard deviations must be positive"},
		{head + "model m {\n  b ~ normal(0, 1)\n  f ~ gp(x, rbf(1))\n  y ~ normal(f, b * [1, 0, 1])\n}\nloglik(m, {b: 1})", "normal's sigma[2] is 0; noise standard deviations must be positive"},
		{head + "model m {\n  f ~ gp(x, rbf(1), inducing: 2)\n  y ~ normal(f, [0.1, 0.2, 0.3])\n}\nloglik(m, {})", "needs the exact GP"},
		{head + "model m {\n  ell ~ lognormal(0, 1)\n  f ~ gp(x, rbf(ell))\n  y ~ normal(f, [0.1, 0.2, 0.3])\n}\noptimize(m, objective: \"map\")", `objective "map" needs one sigma`},
	} {
		kmltest.ExpectError(t, c.src, c.want)
	}
}

// heteroNoiseData is knownNoiseData's regression with the noise sd a
// function of parameters, exp(b0 + b1 x₁), and one free sd per point.
const heteroNoiseData = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4]
model het {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  b0 ~ normal(-1, 1)
  b1 ~ normal(0, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, exp(b0 + b1 * x[:, 1]))
}
model free {
  s[8] ~ lognormal(-1, 1)
  f ~ gp(x, 1.5 * rbf([0.8, 1.3]))
  y ~ normal(f, s)
}
let l = loglik(het, {ell: [0.8, 1.3], a: 1.5, b0: -1.2, b1: 0.4})
`

// TestGPHeteroscedasticNoise: y ~ normal(f, s) with s a vector expression
// of parameters is the exact log N(y | 0, K + diag(s²)) at the
// parameters' values (formed densely here), and its gradient — through
// each sᵢ to b0 and b1, and to each free sᵢ — matches finite differences.
func TestGPHeteroscedasticNoise(t *testing.T) {
	in, _ := kmltest.Run(t, heteroNoiseData)
	x := mat.DenseCopyOf(kmltest.Lookup[*eval.Mat](t, in, "x").M)
	y := kmltest.Lookup[*eval.Vec](t, in, "y").Data
	rbf, _ := kernels.NewRBF([]float64{0.8, 1.3})
	k, _ := kernels.NewScaled(1.5, rbf)
	n := len(y)
	c := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			v := k.Eval(x.RawRowView(i), x.RawRowView(j))
			if i == j {
				s := math.Exp(-1.2 + 0.4*x.At(i, 0))
				v += s * s
			}
			c.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(c); err != nil {
		t.Fatal(err)
	}
	yv := mat.NewVecDense(n, y)
	logdet, _ := mat.LogDet(c)
	want := -0.5*mat.Inner(yv, &inv, yv) - 0.5*logdet - 0.5*float64(n)*math.Log(2*math.Pi)
	if got := float64(kmltest.Lookup[eval.Num](t, in, "l")); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
		t.Errorf("loglik %.12g, dense %.12g", got, want)
	}
	kmltest.CheckModelGradient(t, in, "het", 1e-5, []float64{-0.2, 0.3, 0.4, -1, 0.3}, []float64{0.5, -0.4, -0.3, -0.5, -0.6})
	q := make([]float64, 8)
	for i := range q {
		q[i] = -1 + 0.15*float64(i)
	}
	kmltest.CheckModelGradient(t, in, "free", 1e-5, q)
}
