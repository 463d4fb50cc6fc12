package dists_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestMultiNormal: the log density equals gonum's distmv.Normal (for
// multi_normal and multi_normal_cholesky alike), observations sum over
// rows, the model gradient (through a parameter mean and a multivariate
// prior) matches finite differences, sampling the prior alone recovers its
// mean and sds, and draws have the stated mean.
func TestMultiNormal(t *testing.T) {
	in, _ := kmltest.Run(t, `
let S = [[2, 0.6, 0.2], [0.6, 1, -0.3], [0.2, -0.3, 1.5]]
let L = chol(S)
let x = [0.4, -1.2, 2.0]
let Y = [[0.1, 0.2, 0.3], [1, -1, 0.5]]
let a = logpdf(multi_normal([0.5, 0, -0.5], S), x)
let b = logpdf(multi_normal_cholesky([0.5, 0, -0.5], L), x)
let c = logpdf(multi_normal(0.2, S), Y)
model m {
  mu ~ normal(0, 3)
  w[3] ~ multi_normal(mu, S)
  Y ~ multi_normal(w, S)
}
model prior {
  w[3] ~ multi_normal_cholesky([1, -1, 0], L)
}
let post = sample(prior, chains: 4, warmup: 500, draws: 1000, seed: 61)
let s = summary(post)
let D = draw(multi_normal([1, 2, 3], S), 20000, seed: 62)
let lp = logp(m, {mu: 0.3, w: [0.1, 0.2, -0.1]})
`)
	sigma := mat.NewSymDense(3, []float64{2, 0.6, 0.2, 0.6, 1, -0.3, 0.2, -0.3, 1.5})
	ref, ok := distmv.NewNormal([]float64{0.5, 0, -0.5}, sigma, rand.NewPCG(1, 1))
	if !ok {
		t.Fatal("reference normal")
	}
	want := ref.LogProb([]float64{0.4, -1.2, 2.0})
	for _, name := range []string{"a", "b"} {
		if got := float64(kmltest.Lookup[eval.Num](t, in, name)); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, distmv %v", name, got, want)
		}
	}
	ref2, _ := distmv.NewNormal([]float64{0.2, 0.2, 0.2}, sigma, nil)
	c := kmltest.Lookup[*eval.Vec](t, in, "c").Data
	for i, row := range [][]float64{{0.1, 0.2, 0.3}, {1, -1, 0.5}} {
		if w := ref2.LogProb(row); math.Abs(c[i]-w) > 1e-12 {
			t.Errorf("row %d: %v, distmv %v", i+1, c[i], w)
		}
	}
	// logp of m by hand: normal prior on mu, w's prior, Y's rows.
	refW, _ := distmv.NewNormal([]float64{0.3, 0.3, 0.3}, sigma, nil)
	refY, _ := distmv.NewNormal([]float64{0.1, 0.2, -0.1}, sigma, nil)
	wantLP := -0.5*math.Log(2*math.Pi*9) - 0.5*0.09/9 + refW.LogProb([]float64{0.1, 0.2, -0.1}) +
		refY.LogProb([]float64{0.1, 0.2, 0.3}) + refY.LogProb([]float64{1, -1, 0.5})
	if lp := float64(kmltest.Lookup[eval.Num](t, in, "lp")); math.Abs(lp-wantLP) > 1e-10 {
		t.Errorf("logp = %v, by hand %v", lp, wantLP)
	}
	kmltest.CheckModelGradient(t, in, "m", 1e-6, []float64{0.3, 0.1, 0.2, -0.1}, []float64{-1, 2, 0.5, 0})
	s := kmltest.Lookup[*infer.SummaryVal](t, in, "s").S
	for i, p := range s.Params {
		mean, sd := []float64{1, -1, 0}[i], math.Sqrt(sigma.At(i, i))
		if math.Abs(p.Mean-mean) > 4*p.MCSEMean || math.Abs(p.SD-sd) > 4*p.SD/math.Sqrt(2*p.ESSBulk) {
			t.Errorf("%s: mean %v ± %v (want %v), sd %v (want %v)", p.Name, p.Mean, p.MCSEMean, mean, p.SD, sd)
		}
	}
	D := kmltest.Lookup[*eval.Mat](t, in, "D").M
	for j := 0; j < 3; j++ {
		col := mat.Col(nil, j, D)
		m := 0.0
		for _, v := range col {
			m += v
		}
		m /= float64(len(col))
		if se := math.Sqrt(sigma.At(j, j) / 20000); math.Abs(m-float64(j+1)) > 4*se {
			t.Errorf("draws: mean of column %d is %v, want %d ± %v", j+1, m, j+1, se)
		}
	}
	dir := t.TempDir()
	for _, c := range []struct{ src, want string }{
		{"print(multi_normal([0, 0], [[1, 2], [2, 1]]))", "Sigma is not positive definite"},
		{"print(multi_normal([0, 0, 0], [[1, 0], [0, 1]]))", "mu has 3 elements but the covariance is 2×2"},
		{"print(multi_normal_cholesky([0, 0], [[1, 1], [0, 1]]))", "L must be lower triangular, but L[1, 2] = 1"},
		{"model m {\n  w[3] ~ multi_normal([0, 0], [[1, 0], [0, 1]])\n}\nprint(logp(m, {w: [1, 2, 3]}))", "is a 2-dimensional distribution but w has 3 elements"},
		{"print(logpdf(multi_normal([0, 0], [[1, 0], [0, 1]]), [1, 2, 3]))", "must be a vector of 2 values or a matrix with 2 columns"},
	} {
		if got := kmltest.RunIn(t, dir, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q, want %q", c.src, got, c.want)
		}
	}
}
