package gp

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/runtime/kernels"
)

// The three non-Gaussian likelihoods with parameters of every kind.
var testLiks = []struct {
	name string
	lik  Lik
}{
	{"laplace", Lik{Kind: Laplace, Params: []float64{0.4}}},
	{"student_t", Lik{Kind: StudentT, Params: []float64{3.5, 0.3}}},
	{"logit", Lik{Kind: Logit}},
}

func smallProblem(t testing.TB, n int, l Lik) (kernels.Kernel, *mat.Dense, []float64) {
	x, y := testData(n, 2, 11)
	if l.Kind == Logit {
		for i := range y {
			y[i] = 1
			if x.At(i, 0) < 0 {
				y[i] = -1
			}
		}
		y[0] = -y[0] // a label against the trend
	}
	return testKernel(t, 2), x, y
}

// boundTerm is the super-Gaussian lower bound on log P(y | u) at variance
// gamma, written out from its definition (xi is the logistic's ξ for
// gamma, from xiBisect).
func boundTerm(l Lik, y, u, gamma, xi float64) float64 {
	switch l.Kind {
	case Laplace:
		b := l.Params[0]
		return -math.Log(2*b) - (u-y)*(u-y)/(2*gamma) - gamma/(2*b*b)
	case StudentT:
		nu, s := l.Params[0], l.Params[1]
		lg1, _ := math.Lgamma((nu + 1) / 2)
		lg2, _ := math.Lgamma(nu / 2)
		a := (nu + 1) * gamma / (nu * s * s)
		x := (u - y) * (u - y) / (nu * s * s)
		return lg1 - lg2 - 0.5*math.Log(nu*math.Pi*s*s) - (nu+1)/2*(math.Log(a)+(1+x)/a-1)
	}
	lam := 1 / (2 * gamma)
	return -math.Log1p(math.Exp(-xi)) + (y*u-xi)/2 - lam*(u*u-xi*xi)
}

// xiBisect solves tanh(ξ/2)/(4ξ) = 1/(2γ) for ξ by bisection.
func xiBisect(gamma float64) float64 {
	lam := 1 / (2 * gamma)
	lo, hi := 1e-9, 1e6
	for range 200 {
		mid := (lo + hi) / 2
		if math.Tanh(mid/2)/(4*mid) > lam {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// TestVBBoundsMarginal: the VB objective is a lower bound on the log
// marginal likelihood (−2× it bounds −2 log P(y) from above), computed by
// quadrature for n = 2 and 3, and not a loose one.
func TestVBBoundsMarginal(t *testing.T) {
	for _, tc := range testLiks {
		for _, n := range []int{2, 3} {
			k, x, y := smallProblem(t, n, tc.lik)
			b, err := NonGaussian(Settings{Approx: VB{}}, k, x, y, tc.lik, nil)
			if err != nil {
				t.Fatal(err)
			}
			m := quadNodes(n)
			logZ := quadLogZ(k, x, y, tc.lik)
			// The bound is log ∫ N(u | 0, K) Π exp(boundTerm) du at the
			// sites' fixed point, by the same quadrature.
			K, _ := kernels.Gram(k, x)
			sites, err := FitSites(K, y, tc.lik, false)
			if err != nil {
				t.Fatal(err)
			}
			xis := make([]float64, n)
			for i, g := range sites.Gamma {
				xis[i] = xiBisect(g)
			}
			bq := denseLogZ(k, x, func(i int, u float64) float64 { return boundTerm(tc.lik, y[i], u, sites.Gamma[i], xis[i]) }, m)
			if math.Abs(bq-b) > 1e-6 {
				t.Errorf("%s, n = %d: bound %.10g, its integral by quadrature %.10g", tc.name, n, b, bq)
			}
			if b > logZ+1e-4 || b < logZ-1 {
				t.Errorf("%s, n = %d: bound %.8g, log marginal %.8g: want bound ≤ log Z, within 1", tc.name, n, b, logZ)
			}
			t.Logf("%s, n = %d: −2·bound %.6f ≥ −2 log Z %.6f", tc.name, n, -2*b, -2*logZ)
		}
	}
}

// TestMAPIsVBAtZeroVariance: the inner loop with z = 0 finds the joint MAP
// latent function, so the MAP objective equals the maximum over u of
// log N(u | 0, K + εI) + log P(y | u) found by a general optimiser.
func TestMAPIsVBAtZeroVariance(t *testing.T) {
	for _, tc := range testLiks {
		k, x, y := smallProblem(t, 3, tc.lik)
		got, err := NonGaussian(Settings{Kind: MAP}, k, x, y, tc.lik, nil)
		if err != nil {
			t.Fatal(err)
		}
		K, _ := kernels.Gram(k, x)
		n := len(y)
		for i := 0; i < n; i++ {
			K.SetSym(i, i, K.At(i, i)+MapJitter)
		}
		var ch mat.Cholesky
		ch.Factorize(K)
		dummy := make([]float64, 3)
		negLog := func(u []float64) float64 {
			uv := mat.NewVecDense(n, u)
			var s mat.VecDense
			_ = s.SolveVec(K, uv)
			v := 0.5*mat.Dot(uv, &s) + 0.5*ch.LogDet() + 0.5*float64(n)*math.Log(2*math.Pi)
			for i := range u {
				v -= tc.lik.logProb(dummy, y[i], u[i])
			}
			return v
		}
		r, err := optimize.Minimize(optimize.Problem{Func: negLog}, make([]float64, n),
			&optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-14, Iterations: 200}}, &optimize.NelderMead{})
		if err != nil && r == nil {
			t.Fatal(err)
		}
		if want := -r.F; math.Abs(got-want) > 1e-6 || got < want-1e-9 {
			t.Errorf("%s: MAP objective %.10g, direct maximum %.10g", tc.name, got, want)
		}
	}
}

// TestNonGaussianGradients compares every derivative (kernel
// hyperparameters, then the likelihood's parameters) with central
// differences of the objective, inner loop included.
func TestNonGaussianGradients(t *testing.T) {
	for _, tc := range testLiks {
		k, x, y := smallProblem(t, 12, tc.lik)
		w := Weights(k)
		for _, s := range []Settings{{Approx: VB{}}, {Kind: MAP}, {Kind: MKL, P: 1, Lambda: 0.3, Weights: w}} {
			gradCheck(t, fmt.Sprintf("%s, kind %d", tc.name, s.Kind), s, k, x, y, tc.lik, 1e-5, 1e-4, false)
		}
	}
}
