package gp_test

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

const gpMultiSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1], [0.2, -1.2]]
let c3 = [1, 1, 2, 3, 2, 2, 3, 3, 1]
let cb = [1, 1, 0, 1, 0, 0, 1, 0, 1]
let c2 = 2 - cb
model mc {
  ell ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  f ~ gp(x, a * rbf(ell), classes: 3)
  c3 ~ categorical_logit(f)
}
model fixed3 {
  f ~ gp(x, 2 * rbf(0.7), classes: 3)
  c3 ~ categorical_logit(f)
}
model two {
  f ~ gp(x, 2 * rbf(0.7), classes: 2)
  c2 ~ categorical_logit(f)
}
model bin {
  f ~ gp(x, 4 * rbf(0.7))
  cb ~ bernoulli_logit(f)
}
`

func gpMultiX() *mat.Dense {
	return mat.NewDense(9, 2, []float64{0.1, 1.0, 0.5, -0.3, 0.9, 0.4, 1.3, 1.1, 1.7, -0.8, 2.1, 0.2, 2.6, 0.9, 3.0, -0.1, 0.2, -1.2})
}

// TestGPMultiClassLogLik: loglik of a multi-class model is runtime/gp's
// MultiLaplace at the fixed kernel (labels 1..C read as 0..C−1); with two
// classes it equals the binary logistic model with the kernel doubled
// (f¹ − f² ~ GP(0, 2K); class 1 ↔ label 1), and so does predict's latent
// mean of f¹ − f²; every row of predict's prob sums to 1.
func TestGPMultiClassLogLik(t *testing.T) {
	in, _ := kmltest.Run(t, gpMultiSrc+`
let l3 = loglik(fixed3, {}, approx: "laplace")
let l2 = loglik(two, {}, approx: "laplace")
let lb = loglik(bin, {}, approx: "laplace")
let p2 = predict(two, x, values: {}, seed: 3)
let pb = predict(bin, x, values: {}, approx: "laplace")
let p3 = predict(fixed3, [[0.5, 0.5], [2.0, 0.0]], values: {}, draws: 400, seed: 4)
`)
	rbf, _ := kernels.NewRBF([]float64{0.7})
	k, _ := kernels.NewScaled(2, rbf)
	want, _, err := rgp.MultiLaplace(k, gpMultiX(), []int{0, 0, 1, 2, 1, 1, 2, 2, 0}, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l3 := float64(kmltest.Lookup[eval.Num](t, in, "l3")); math.Abs(l3-want) > 1e-12 {
		t.Errorf("loglik %.12g, runtime %.12g", l3, want)
	}
	l2 := float64(kmltest.Lookup[eval.Num](t, in, "l2"))
	lb := float64(kmltest.Lookup[eval.Num](t, in, "lb"))
	if math.Abs(l2-lb) > 1e-9 {
		t.Errorf("two classes: loglik %.12g, binary with 2K %.12g", l2, lb)
	}
	p2 := kmltest.Lookup[*eval.Record](t, in, "p2")
	pb := kmltest.Lookup[*eval.Record](t, in, "pb")
	fm, _ := p2.Attr("f_mean")
	fb, _ := pb.Attr("f_mean")
	m2 := fm.(*eval.Mat).M
	mb := fb.(*eval.Vec).Data
	for i, v := range mb {
		if g := m2.At(i, 0) - m2.At(i, 1); math.Abs(g-v) > 1e-8 {
			t.Errorf("point %d: mean of f¹ − f² %.10g, binary %.10g", i+1, g, v)
		}
	}
	p3 := kmltest.Lookup[*eval.Record](t, in, "p3")
	pv, _ := p3.Attr("prob")
	pm := pv.(*eval.Mat).M
	if r, c := pm.Dims(); r != 2 || c != 3 {
		t.Fatalf("prob is %d×%d, want 2×3", r, c)
	}
	for i := range 2 {
		s := 0.0
		for c := range 3 {
			s += pm.At(i, c)
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("row %d of prob sums to %v", i+1, s)
		}
	}
	if d, _ := p3.Attr("draws"); d != eval.Num(400) {
		t.Errorf("draws %v, want 400", d)
	}
	if s, _ := p3.Attr("seed"); s != eval.Num(4) {
		t.Errorf("seed %v, want 4", s)
	}
}

// TestGPMultiClassGradient: the compiled density's gradient in the
// kernel's hyperparameters (through the replayable node) matches central
// differences, and optimize converges and records approx "laplace".
func TestGPMultiClassGradient(t *testing.T) {
	in, _ := kmltest.Run(t, gpMultiSrc+`
let o = optimize(mc, objective: "ml", approx: "laplace", seed: 1)
let p = predict(o, x, seed: 1)
`)
	m := kmltest.Lookup[*eval.Model](t, in, "mc")
	c, err := model.CompileFor(in, m, nil, model.Terms{Likelihood: true, Latent: model.Objective{Name: "mlm", Approx: "laplace"}})
	if err != nil {
		t.Fatal(err)
	}
	checkGradient(t, in, c, []float64{0.3, -0.4}, 1e-6, "mc")
	o := kmltest.Lookup[*eval.Record](t, in, "o")
	if v, _ := o.Attr("converged"); v != eval.Bool(true) {
		t.Errorf("optimize did not converge: %v", o)
	}
	if v, _ := o.Attr("approx"); v != eval.Str("laplace") {
		t.Errorf("optimize's record has approx %v", v)
	}
}

// TestGPMultiClassErrors: what is refused, and where it is reported.
func TestGPMultiClassErrors(t *testing.T) {
	head := `let x = [[0], [1], [2], [3]]
`
	mc := func(labels, kernelArgs, obs string) string {
		return head + "let c = " + labels + "\nmodel m {\n  f ~ gp(x, rbf(1)" + kernelArgs + ")\n  c ~ " + obs + "\n}\n"
	}
	cases := []struct{ src, want string }{
		{mc("[1, 2, 4, 1]", ", classes: 3", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"t.kml:5:5: error: label 3 is 4, not a class from 1 to 3 (classes: 3)"},
		{mc("[1, 0, 2, 1]", ", classes: 3", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"label 2 is 0, not a class from 1 to 3"},
		{mc("[1, 1.5, 2, 1]", ", classes: 3", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"label 2 is 1.5, not a class"},
		{mc("[1, 2, 2, 1]", ", classes: 1", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"t.kml:4:30: error: gp: classes must be a whole number of classes from 2 to 1000, got 1"},
		{mc("[1, 2, 2, 1]", ", classes: 2", "categorical_logit(f)") + `loglik(m, {})`,
			`multi-class GP classification has Laplace's approximation only (Williams and Barber 1998), not "vb": write approx: "laplace"`},
		{mc("[1, 2, 2, 1]", ", classes: 2", "categorical_logit(f)") + `optimize(m, objective: "map")`,
			`objective "map" is not available for multi-class GP classification`},
		{mc("[1, 2, 2, 1]", "", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"t.kml:5:7: error: categorical_logit of a latent function needs one GP per class: write f ~ gp(X, KERNEL, classes: C)"},
		{mc("[1, 0, 0, 1]", ", classes: 2", "bernoulli_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"a latent GP with classes: 2 is observed as labels through categorical_logit(f), not bernoulli_logit"},
		{mc("[1, 2, 2]", ", classes: 2", "categorical_logit(f)") + `loglik(m, {}, approx: "laplace")`,
			"3 labels for a latent GP at 4 input rows"},
		{mc("[1, 2, 2, 1]", ", classes: 2", "categorical_logit(f)") + `predict(m, x, values: {}, approx: "ep")`,
			`not "ep": write approx: "laplace"`},
		{mc("[1, 2, 2, 1]", ", classes: 2", "categorical_logit(f)") + `predict(m, x, values: {}, draws: 0)`,
			"draws"},
	}
	for _, c := range cases {
		kmltest.ExpectError(t, c.src, c.want)
	}
}
