package kst_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/kst"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// kstData binds x, 20 points from two normal clusters; kf, an RBF kernel
// family; and xm, six points in two dimensions.
const kstData = `
let x = concat(draw(normal(-1, 0.4), 12, seed: 1), draw(normal(1.5, 0.3), 8, seed: 2))
fn kf(l) = rbf(l)
let xm = rbind([0, 0.1], [1, 0.3], [0.2, -0.5], [1.5, 1], [-0.3, 0.8], [0.9, -0.2])
`

// expectErrors runs each case's src after kstData and requires an error
// whose message contains its want.
func expectErrors(t *testing.T, cases []struct{ src, want string }) {
	t.Helper()
	for _, c := range cases {
		var out bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
		_, err := in.Eval("t.kml", kstData+c.src+"\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.src, err, c.want)
		}
	}
}

// kst(...) and logpdf in KML give what the runtime gives, for a vector of
// 1-D points, a lone point and a matrix.
func TestKSTBindingAgreesWithRuntime(t *testing.T) {
	in, _ := kmltest.Run(t, kstData+`
let d = kst(x, kernel: rbf(0.7), sigma0: 0.5, alpha: 2, beta: 0.1)
let a = logpdf(d, [-1, 0, 2])
let b = logpdf(d, 0)
let n = novelty(d, [-1, 0, 2])
let dm = kst(xm, poly(2, 1), sigma0: 2)
let c = logpdf(dm, [0.5, 0.5])
let cm = logpdf(dm, [[0.5, 0.5], [2, 2]])
`)
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	k, _ := kernels.NewRBF([]float64{0.7})
	m, err := kst.Fit(k, mat.NewDense(len(x), 1, x), kst.Hyper{Sigma0: 0.5, Alpha: 2, Beta: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, 3)
	if err := m.LogPDF(want, mat.NewDense(3, 1, []float64{-1, 0, 2})); err != nil {
		t.Fatal(err)
	}
	a := kmltest.Lookup[*eval.Vec](t, in, "a").Data
	n := kmltest.Lookup[*eval.Vec](t, in, "n").Data
	for i := range want {
		if a[i] != want[i] || n[i] != -want[i] {
			t.Errorf("point %d: logpdf %v, novelty %v; runtime %v", i, a[i], n[i], want[i])
		}
	}
	if b := float64(kmltest.Lookup[eval.Num](t, in, "b")); b != want[1] {
		t.Errorf("lone point: %v, want %v", b, want[1])
	}
	c := float64(kmltest.Lookup[eval.Num](t, in, "c"))
	cm := kmltest.Lookup[*eval.Vec](t, in, "cm").Data
	if len(cm) != 2 || cm[0] != c {
		t.Errorf("matrix rows %v, lone point %v", cm, c)
	}
}

// classify's probabilities are the joint densities renormalised; auc and
// onehot give known values; tune's reported scores are what auc, classify
// and a closed-form normalised Parzen window give for its chosen point.
func TestKSTTasks(t *testing.T) {
	in, _ := kmltest.Run(t, kstData+`
let y = rbind([0, 0], [0.2, 0.1], [-0.1, 0.2], [3, 3], [3.2, 2.9], [2.8, 3.1])
let lab = [1, 1, 1, 2, 2, 2]
let rows = cbind(y, onehot(lab, 2))
let d = kst(rows, rbf(1), sigma0: 0.5)
let c = classify(d, [[0.1, 0], [3, 3.1]], labels: 2)
let j1 = exp(logpdf(d, [0.1, 0, 1, 0]))
let j2 = exp(logpdf(d, [0.1, 0, 0, 1]))
let p1 = j1 / (j1 + j2)
let a = auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
fn k(l) = rbf(l)
let valid = rbind([0.1, 0.1, 1, 0], [2.9, 3, 0, 1], [0.3, 0, 0, 1], [3, 3.3, 1, 0])
let ta = tune(rows, valid, kernel: k, ell: [0.5, 1, 2], sigma0: [0.3, 1], novel: [0, 0, 1, 1])
let da = kst(rows, ta.kernel, sigma0: ta.sigma0, alpha: ta.alpha, beta: ta.beta)
let aa = auc(novelty(da, valid), [0, 0, 1, 1])
let te = tune(rows, valid, kernel: k, ell: [0.5, 1, 2], score: "error", labels: 2, method: "kde")
let ce = classify(kde(rows, te.kernel), valid[:, 1:2], labels: 2)
let ee = mean(ce.label != [1, 2, 2, 1])
let tl = tune(x[1:15], x[16:20], kernel: k, ell: [0.2, 0.4, 0.8], method: "kde", score: "logpdf", window: [-6, 7])
`)
	c := kmltest.Lookup[*eval.Record](t, in, "c")
	lab, _ := c.Attr("label")
	if got := lab.(*eval.Vec).Data; got[0] != 1 || got[1] != 2 {
		t.Errorf("classify labels %v, want [1 2]", got)
	}
	probs, _ := c.Attr("probs")
	if p, want := probs.(*eval.Mat).M.At(0, 0), float64(kmltest.Lookup[eval.Num](t, in, "p1")); math.Abs(p-want) > 1e-12 {
		t.Errorf("P(label 1) = %v, renormalised joint density %v", p, want)
	}
	if a := float64(kmltest.Lookup[eval.Num](t, in, "a")); a != 0.75 {
		t.Errorf("auc = %v, want 0.75", a)
	}
	score := func(name string) float64 {
		v, _ := kmltest.Lookup[*eval.Record](t, in, name).Attr("score")
		return float64(v.(eval.Num))
	}
	if s, want := score("ta"), float64(kmltest.Lookup[eval.Num](t, in, "aa")); s != want {
		t.Errorf("tune auc score %v, auc at its point %v", s, want)
	}
	if s, want := score("te"), float64(kmltest.Lookup[eval.Num](t, in, "ee")); s != want {
		t.Errorf("tune error score %v, error at its point %v", s, want)
	}
	// The Parzen window of rbf(ℓ), normalised over a wide window, is the
	// Gaussian mixture (1/N) Σ N(x; x_i, ℓ²): tune's "logpdf" scores are its
	// mean held-out log density.
	x := kmltest.Lookup[*eval.Vec](t, in, "x").Data
	grid, _ := kmltest.Lookup[*eval.Record](t, in, "tl").Attr("grid")
	ells, _ := grid.(*eval.Record).Attr("ell")
	scores, _ := grid.(*eval.Record).Attr("score")
	for g, l := range ells.(*eval.Vec).Data {
		want := 0.0
		for _, v := range x[15:] {
			s := 0.0
			for _, c := range x[:15] {
				s += math.Exp(-(v-c)*(v-c)/(2*l*l)) / (l * math.Sqrt(2*math.Pi))
			}
			want += math.Log(s/15) / 5
		}
		if got := scores.(*eval.Vec).Data[g]; math.Abs(got-want) > 1e-6 {
			t.Errorf("ell = %v: tune's held-out log density %v, closed form %v", l, got, want)
		}
	}
}

func TestKSTErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"kst([], rbf(1))", "t.kml:5:1: error: kst: needs at least one training point"},
		{"kst(x, rbf(1), sigma0: -1)", "sigma0 must be positive"},
		{"kst([[1, 2, 3, 4]], rbf(1), alpha: 1)", "alpha + N must exceed d − 1 = 3"},
		{"kst([1, 0 / 0], rbf(1))", "NaN in row 2, column 1"},
		{"logpdf(kst(xm, rbf(1)), [1, 2, 3])", "t.kml:5:25: error: logpdf: x is a vector of length 3 but the density has 2 dimensions"},
		{"logpdf(kst(xm, rbf(1)), [[1, 2, 3]])", "3 columns but the density was fitted to 2"},
		{"novelty(kst(x, rbf(1)), [1, 1 / 0])", "+Inf in row 2"},
		{"novelty(normal(0, 1), 1)", "d must be a density from kst, kde or dpm"},
		{"auc([1, 2], [1, 1])", "both classes"},
		{"auc([1, 2], [1, 3])", "labels must be 0 or 1, got 3 at position 2"},
		{"onehot([1, 4], 3)", "y[2] = 4 is not one of the labels"},
		{"classify(kst(xm, rbf(1)), [[1, 2]], labels: 2)", "the density has 2 dimensions but 2 feature columns and 2 labels make 4"},
		{"tune(xm, xm, rbf(1))", `score "auc" needs novel`},
		{"tune(xm, 2, rbf(1), novel: [0, 1])", `score "auc" needs the held-out rows`},
		{"tune(xm, xm, kf, novel: [0, 1, 0, 1, 0, 1])", "needs ell"},
		{"tune(x, 3, rbf(1), score: \"logpdf\")", "needs window"},
		{"tune(xm, 2, rbf(1), score: \"logpdf\", window: [0, 1])", "one-dimensional data"},
		{"tune(xm, xm, rbf(1), novel: [0, 1, 0, 1, 0, 1], sigma0: [1, -2])", "sigma0 must be positive"},
		{"model q {\n a ~ normal(0, 1)\n target += sum(logpdf(kst(x, rbf(1)), [a, a]))\n}\nprint(optimize(q))", "depends on model parameters: give one point"},
		{"fn bad(l) = rbf(l - 5)\ntune(x, 3, bad, ell: [1], score: \"logpdf\", window: [-9, 9])", "t.kml:5:17: error: rbf: lengthscale ell must be positive"},
		{"fn three(l) = 3\ntune(x, 3, three, ell: [1], score: \"logpdf\", window: [-9, 9])", "t.kml:6:1: error: tune: the kernel function returned number at ell = 1, not a kernel"},
		{"fantasy(10, rbf(1), dim: 2)", "improper; give box: B"},
		{"fantasy(10, rbf(1), box: -1)", "box must be positive"},
		{"fantasy(10, rbf([1, 2]), dim: 3, box: 2)", "2 lengthscales but the points have dimension 3"},
		{"fantasy(10, poly(2, 1), dim: 3, alpha: 0.5)", "alpha + N must exceed d − 1 = 2"},
	}
	expectErrors(t, cases)
}

// One point that depends on model parameters gets the gradient of log q:
// a model with target += logpdf(d, point) has the gradient finite
// differences give, for kst and kde, in one and two dimensions.
func TestKSTInModels(t *testing.T) {
	in, _ := kmltest.Run(t, kstData+`
let d1 = kst(x, rbf(0.6), sigma0: 0.5, alpha: 2, beta: 0.1)
let d2 = kst(xm, rbf([0.8, 1.2]), sigma0: 0.3)
let e2 = kde(xm, rbf(0.5))
let p2 = kst(xm, poly(2, 1))
model m1 {
  a ~ normal(0, 3)
  target += logpdf(d1, a)
}
model m2 {
  a ~ normal(0, 3)
  b ~ normal(0, 3)
  target += logpdf(d2, [a, b]) + logpdf(e2, [b, a]) + logpdf(p2, [a, b])
}
`)
	kmltest.CheckModelGradient(t, in, "m1", 1e-6, []float64{-1.2}, []float64{0.3}, []float64{2})
	kmltest.CheckModelGradient(t, in, "m2", 1e-6, []float64{0.1, 0.2}, []float64{1.1, -0.4}, []float64{-2, 2})
}
