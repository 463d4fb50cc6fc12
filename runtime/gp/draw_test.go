package gp

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// drawStream is the random stream of the draw tests.
const drawStream rng.Stream = 0x67706472 // "gpdr"

// inverse is a's inverse by LU, the reference the closed forms below are
// checked against (no Cholesky, no jitter).
func inverse(t *testing.T, a mat.Matrix) *mat.Dense {
	t.Helper()
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	return &inv
}

// precisionPosterior is N(Σb, Σ) with Σ = (K⁻¹ + P)⁻¹ for a diagonal
// precision p: every Gaussian q(f) at the inputs in its natural form.
func precisionPosterior(t *testing.T, K *mat.SymDense, p, b []float64) ([]float64, *mat.Dense) {
	t.Helper()
	prec := inverse(t, K)
	for i, v := range p {
		prec.Set(i, i, prec.At(i, i)+v)
	}
	sigma := inverse(t, prec)
	var m mat.VecDense
	m.MulVec(sigma, mat.NewVecDense(len(b), b))
	return m.RawVector().Data, sigma
}

func closeMat(t *testing.T, what string, got mat.Matrix, want mat.Matrix, tol float64) {
	t.Helper()
	r, c := want.Dims()
	for i := range r {
		for j := range c {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > tol*(1+math.Abs(want.At(i, j))) {
				t.Fatalf("%s[%d,%d] = %.10g, want %.10g", what, i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
}

func closeVec(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	closeMat(t, what, mat.NewVecDense(len(got), got), mat.NewVecDense(len(want), want), tol)
}

// TestSitesJointIsRegression: SitesJoint with a common noise σ² is GP
// regression's posterior at the training inputs, K(K + σ²I)⁻¹y and
// K − K(K + σ²I)⁻¹K, against an LU inverse; with one variance per
// observation it is the precision form (K⁻¹ + N⁻¹)⁻¹, mean Σ N⁻¹y.
func TestSitesJointIsRegression(t *testing.T) {
	k, x, y := smallProblem(t, 12, Lik{})
	K, err := kernels.Gram(k, x)
	if err != nil {
		t.Fatal(err)
	}
	const s2 = 0.09
	mean, cov, err := SitesJoint(K, y, []float64{s2})
	if err != nil {
		t.Fatal(err)
	}
	c := mat.NewDense(12, 12, nil)
	c.Copy(K)
	for i := range 12 {
		c.Set(i, i, c.At(i, i)+s2)
	}
	ci := inverse(t, c)
	var kc, kck mat.Dense
	kc.Mul(K, ci)
	kck.Mul(&kc, K)
	var wantCov mat.Dense
	wantCov.Sub(K, &kck)
	var wantMean mat.VecDense
	wantMean.MulVec(&kc, mat.NewVecDense(12, y))
	closeVec(t, "mean", mean, wantMean.RawVector().Data, 1e-9)
	closeMat(t, "cov", cov, &wantCov, 1e-9)

	noise := make([]float64, 12)
	p, b := make([]float64, 12), make([]float64, 12)
	for i := range noise {
		noise[i] = 0.05 + 0.02*float64(i)
		p[i], b[i] = 1/noise[i], y[i]/noise[i]
	}
	mean, cov, err = SitesJoint(K, y, noise)
	if err != nil {
		t.Fatal(err)
	}
	wm, wc := precisionPosterior(t, K, p, b)
	closeVec(t, "sites mean", mean, wm, 1e-8)
	closeMat(t, "sites cov", cov, wc, 1e-8)
}

// TestJointOfEachApproximation: the q(f) Joint reads from each Inference
// is the Gaussian its method defines, rebuilt in precision form by LU:
// VB's (K⁻¹ + Γ⁻¹)⁻¹ with mean ΣΓ⁻¹m (FitSites' γ and m); Laplace's
// (K⁻¹ + W)⁻¹ at the mode f̂, which must satisfy f̂ = K∇log P(y | f̂);
// EP's (K⁻¹ + T̃)⁻¹ with mean Σν̃ (FitEP's sites).
func TestJointOfEachApproximation(t *testing.T) {
	l := Lik{Kind: Logit}
	k, x, y := smallProblem(t, 10, l)
	K, err := kernels.Gram(k, x)
	if err != nil {
		t.Fatal(err)
	}
	joint := func(inf Inference) ([]float64, *mat.SymDense) {
		t.Helper()
		p, err := inf.Fit(K, y, l, Needs{Predictive: true})
		if err != nil {
			t.Fatal(err)
		}
		m, c, err := p.Joint(K)
		if err != nil {
			t.Fatal(err)
		}
		return m, c
	}
	n := len(y)
	p, b := make([]float64, n), make([]float64, n)

	m, c := joint(VB{})
	s, err := FitSites(K, y, l, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p {
		p[i], b[i] = 1/s.Gamma[i], s.M[i]/s.Gamma[i]
	}
	wm, wc := precisionPosterior(t, K, p, b)
	closeVec(t, "vb mean", m, wm, 1e-7)
	closeMat(t, "vb cov", c, wc, 1e-7)

	m, c = joint(LaplaceApprox{})
	grad := make([]float64, n)
	for i := range p {
		_, d1, d2, _ := l.derivs(y[i], m[i])
		grad[i], p[i] = d1, -d2
	}
	var kg mat.VecDense
	kg.MulVec(K, mat.NewVecDense(n, grad))
	closeVec(t, "laplace mode", m, kg.RawVector().Data, 1e-8)
	sigma := inverse(t, K)
	for i := range p {
		sigma.Set(i, i, sigma.At(i, i)+p[i])
	}
	closeMat(t, "laplace cov", c, inverse(t, sigma), 1e-7)

	m, c = joint(EP{})
	ep, err := FitEP(K, y, l)
	if err != nil {
		t.Fatal(err)
	}
	wm, wc = precisionPosterior(t, K, ep.Tau, ep.Nu)
	closeVec(t, "ep mean", m, wm, 1e-7)
	closeMat(t, "ep cov", c, wc, 1e-7)
}

// TestDrawGaussianMoments draws 40000 seeded f ~ N(m, K) and compares
// their mean and covariance with m and K. The tolerance is 4.5 Monte
// Carlo standard errors of each entry: sd(f_i)/√N for a mean, and
// √((K_ii K_jj + K_ij²)/N) for a covariance (the variance of a product of
// jointly normal centred variables).
func TestDrawGaussianMoments(t *testing.T) {
	k, x, _ := smallProblem(t, 6, Lik{})
	K, err := kernels.Gram(k, x)
	if err != nil {
		t.Fatal(err)
	}
	mu := []float64{1, -2, 0.5, 0, 3, -1}
	r := rng.New(36, drawStream)
	const N = 40000
	n := len(mu)
	sum := make([]float64, n)
	sq := mat.NewDense(n, n, nil)
	for range N {
		f, jit, err := DrawGaussian(r, mu, K)
		if err != nil {
			t.Fatal(err)
		}
		if jit != 0 {
			t.Fatalf("jitter %g on a positive definite K", jit)
		}
		for i := range n {
			sum[i] += f[i]
			for j := range n {
				sq.Set(i, j, sq.At(i, j)+(f[i]-mu[i])*(f[j]-mu[j]))
			}
		}
	}
	for i := range n {
		se := math.Sqrt(K.At(i, i) / N)
		if d := sum[i]/N - mu[i]; math.Abs(d) > 4.5*se {
			t.Errorf("mean f[%d] off by %.4g, more than 4.5 × %.3g", i, d, se)
		}
		for j := range n {
			se := math.Sqrt((K.At(i, i)*K.At(j, j) + K.At(i, j)*K.At(i, j)) / N)
			if d := sq.At(i, j)/N - K.At(i, j); math.Abs(d) > 4.5*se {
				t.Errorf("cov f[%d,%d] off by %.4g, more than 4.5 × %.3g", i, j, d, se)
			}
		}
	}
}

// TestDrawGaussianJitter: a singular covariance (two equal inputs) takes
// the jitter of the marginal's schedule, at most 10⁻⁴ of the mean
// variance, and the two draws agree to its square root.
func TestDrawGaussianJitter(t *testing.T) {
	cov := mat.NewSymDense(2, []float64{1, 1, 1, 1})
	f, jit, err := DrawGaussian(rng.New(36, drawStream.Index(1)), []float64{0, 0}, cov)
	if err != nil {
		t.Fatal(err)
	}
	if !(jit > 0 && jit <= 1e-4) {
		t.Fatalf("jitter %g, want in (0, 1e-4]", jit)
	}
	if math.Abs(f[0]-f[1]) > 10*math.Sqrt(2*jit) {
		t.Errorf("draws %v of a singular pair differ by more than the jitter allows", f)
	}
}
