package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
)

// The GP tests draw f at six inputs with the kernel 2·rbf(0.7), whose
// Gram matrix the tests write out from rbf's definition,
// K_ij = 2 exp(−(x_i − x_j)²/(2 · 0.7²)).
const gpInputs = `let X = [[0.0], [0.4], [0.9], [1.5], [2.2], [3.0]]
`

var gpX = []float64{0, 0.4, 0.9, 1.5, 2.2, 3.0}

func gpGram() *mat.Dense {
	n := len(gpX)
	K := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			d := gpX[i] - gpX[j]
			K.Set(i, j, 2*math.Exp(-d*d/(2*0.49)))
		}
	}
	return K
}

// moments are the sample mean and covariance (about the sample mean) of
// rows.
func moments(rows [][]float64) ([]float64, *mat.Dense) {
	n, N := len(rows[0]), float64(len(rows))
	m := make([]float64, n)
	for _, r := range rows {
		for i, v := range r {
			m[i] += v / N
		}
	}
	c := mat.NewDense(n, n, nil)
	for _, r := range rows {
		for i := range n {
			for j := range n {
				c.Set(i, j, c.At(i, j)+(r[i]-m[i])*(r[j]-m[j])/(N-1))
			}
		}
	}
	return m, c
}

// checkGaussianMoments compares the draws' mean and covariance with
// N(mean, cov). The rule: each entry within 4.5 Monte Carlo standard
// errors, sd_i/√N for a mean and √((Σ_ii Σ_jj + Σ_ij²)/N) for a
// covariance (the variance of a product of jointly normal centred
// variables), so a correct sampler fails one of the 27 checks with
// probability below 10⁻⁴.
func checkGaussianMoments(t *testing.T, what string, rows [][]float64, mean []float64, cov mat.Matrix) {
	t.Helper()
	N := float64(len(rows))
	m, c := moments(rows)
	for i := range mean {
		if se := math.Sqrt(cov.At(i, i) / N); math.Abs(m[i]-mean[i]) > 4.5*se {
			t.Errorf("%s: mean f[%d] = %.4f, want %.4f ± %.4f", what, i, m[i], mean[i], 4.5*se)
		}
		for j := i; j < len(mean); j++ {
			se := math.Sqrt((cov.At(i, i)*cov.At(j, j) + cov.At(i, j)*cov.At(i, j)) / N)
			if math.Abs(c.At(i, j)-cov.At(i, j)) > 4.5*se {
				t.Errorf("%s: cov f[%d,%d] = %.4f, want %.4f ± %.4f", what, i, j, c.At(i, j), cov.At(i, j), 4.5*se)
			}
		}
	}
}

// TestForwardGPPrior: the prior predictive of a GP regression draws f at
// the inputs from N(0, K) (20000 seeded draws against the Gram matrix
// written out above) and y − f from the noise, whose variance is
// E[s²] = exp(2μ + 2σ²) = e^{−1.92} for s ~ lognormal(−1, 0.2).
func TestForwardGPPrior(t *testing.T) {
	in, m := forwardModel(t, gpInputs+`
let y = [0.1, 0.5, 0.9, 0.4, -0.3, -0.6]
model m {
  s ~ lognormal(-1, 0.2)
  f ~ gp(X, 2 * rbf(0.7))
  y ~ normal(f, s)
}
`)
	th := in.NewThread(nil)
	r, rf := rand.New(rand.NewPCG(36, 10)), rand.New(rand.NewPCG(36, 11))
	const N = 20000
	var fs [][]float64
	var res []float64
	for range N {
		fd, err := model.ForwardWith(th, m, r, nil, model.ForwardOptions{Latent: rf})
		if err != nil {
			t.Fatal(err)
		}
		if len(fd.Latents) != 1 || fd.Latents[0].Name != "f" || fd.Latents[0].Method != "prior" {
			t.Fatalf("latent draws %+v, want f from the prior", fd.Latents)
		}
		f := fd.Latents[0].Value.Data
		fs = append(fs, f)
		y := fd.Data[0].Value.(*eval.Vec).Data
		for i := range y {
			res = append(res, y[i]-f[i])
		}
	}
	checkGaussianMoments(t, "prior", fs, make([]float64, len(gpX)), gpGram())
	v := 0.0
	for _, e := range res {
		v += e * e / float64(len(res))
	}
	// var(e²) = E[s⁴]·3 − E[s²]² with E[s⁴] = exp(4μ + 8σ²).
	es2, es4 := math.Exp(-1.92), math.Exp(-4+8*0.04)
	if se := math.Sqrt((3*es4 - es2*es2) / float64(len(res))); math.Abs(v-es2) > 4.5*se {
		t.Errorf("var(y − f) = %.5f, want %.5f ± %.5f", v, es2, 4.5*se)
	}
}

// TestForwardGPPosterior: with the parameters given (a posterior draw,
// s = 0.3), f is drawn from GP regression's posterior at the inputs,
// mean K(K + s²I)⁻¹y and covariance K − K(K + s²I)⁻¹K, computed here by
// an LU inverse.
func TestForwardGPPosterior(t *testing.T) {
	in, m := forwardModel(t, gpInputs+`
let y = [0.1, 0.5, 0.9, 0.4, -0.3, -0.6]
model m {
  s ~ lognormal(-1, 0.2)
  f ~ gp(X, 2 * rbf(0.7))
  y ~ normal(f, s)
}
`)
	y := []float64{0.1, 0.5, 0.9, 0.4, -0.3, -0.6}
	K := gpGram()
	n := len(y)
	c := mat.DenseCopyOf(K)
	for i := range n {
		c.Set(i, i, c.At(i, i)+0.09)
	}
	var ci, kc, kck, cov mat.Dense
	if err := ci.Inverse(c); err != nil {
		t.Fatal(err)
	}
	kc.Mul(K, &ci)
	kck.Mul(&kc, K)
	cov.Sub(K, &kck)
	var mean mat.VecDense
	mean.MulVec(&kc, mat.NewVecDense(n, y))

	given := eval.NewRecord().Set("s", eval.Num(0.3))
	th := in.NewThread(nil)
	r, rf := rand.New(rand.NewPCG(36, 12)), rand.New(rand.NewPCG(36, 13))
	var fs [][]float64
	for range 20000 {
		fd, err := model.ForwardWith(th, m, r, given, model.ForwardOptions{Latent: rf})
		if err != nil {
			t.Fatal(err)
		}
		if fd.Latents[0].Method != "exact" {
			t.Fatalf("method %q, want exact", fd.Latents[0].Method)
		}
		fs = append(fs, fd.Latents[0].Value.Data)
	}
	checkGaussianMoments(t, "posterior", fs, mean.RawVector().Data, &cov)
}

// TestForwardGPLatentPosterior: for bernoulli_logit observations the
// posterior draw of f follows the approximation the fit used. With
// Laplace's, f ~ N(f̂, (K⁻¹ + W)⁻¹) at the posterior mode f̂, found here
// by plain Newton iterations f ← (K⁻¹ + W)⁻¹(Wf + ∇log P(y | f)) with
// inverses by LU (W = π(1 − π), ∇ = (y + 1)/2 − π for labels ±1); EP's
// draws are named as such.
func TestForwardGPLatentPosterior(t *testing.T) {
	in, m := forwardModel(t, gpInputs+`
let z = [0, 0, 1, 1, 0, 1]
model m {
  a ~ lognormal(0, 0.5)
  f ~ gp(X, 2 * rbf(0.7))
  z ~ bernoulli_logit(f)
}
`)
	labels := []float64{-1, -1, 1, 1, -1, 1}
	K := gpGram()
	n := len(labels)
	var kinv mat.Dense
	if err := kinv.Inverse(K); err != nil {
		t.Fatal(err)
	}
	f := make([]float64, n)
	var sigma mat.Dense
	for range 100 {
		prec := mat.DenseCopyOf(&kinv)
		rhs := make([]float64, n)
		for i := range n {
			p := 1 / (1 + math.Exp(-f[i]))
			w := p * (1 - p)
			prec.Set(i, i, prec.At(i, i)+w)
			rhs[i] = w*f[i] + (labels[i]+1)/2 - p
		}
		if err := sigma.Inverse(prec); err != nil {
			t.Fatal(err)
		}
		var fn mat.VecDense
		fn.MulVec(&sigma, mat.NewVecDense(n, rhs))
		copy(f, fn.RawVector().Data)
	}
	given := eval.NewRecord().Set("a", eval.Num(1))
	th := in.NewThread(nil)
	r, rf := rand.New(rand.NewPCG(36, 14)), rand.New(rand.NewPCG(36, 15))
	var fs [][]float64
	for range 20000 {
		fd, err := model.ForwardWith(th, m, r, given, model.ForwardOptions{Latent: rf, Approx: "laplace"})
		if err != nil {
			t.Fatal(err)
		}
		if fd.Latents[0].Method != "laplace" {
			t.Fatalf("method %q, want laplace", fd.Latents[0].Method)
		}
		for _, v := range fd.Data[0].Value.(*eval.Vec).Data {
			if v != 0 && v != 1 {
				t.Fatalf("replicated label %v, want 0 or 1 as observed", v)
			}
		}
		fs = append(fs, fd.Latents[0].Value.Data)
	}
	checkGaussianMoments(t, "laplace", fs, f, &sigma)
	fd, err := model.ForwardWith(th, m, r, given, model.ForwardOptions{Approx: rgp.Approx("ep")})
	if err != nil {
		t.Fatal(err)
	}
	if fd.Latents[0].Method != "ep" {
		t.Errorf("method %q, want ep", fd.Latents[0].Method)
	}
}
