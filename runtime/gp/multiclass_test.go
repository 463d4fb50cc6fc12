package gp

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

// multiProblem is n points in 2-d with C classes labelled by the angle of
// the point (0..C−1), two labels flipped against the trend.
func multiProblem(t testing.TB, n, C int, seed uint64) (kernels.Kernel, *mat.Dense, []int) {
	x, _ := testData(n, 2, seed)
	y := make([]int, n)
	for i := range y {
		a := math.Atan2(x.At(i, 1), x.At(i, 0)) + math.Pi
		y[i] = min(int(a/(2*math.Pi)*float64(C)), C-1)
	}
	y[0] = (y[0] + 1) % C
	y[n-1] = (y[n-1] + C - 1) % C
	return testKernel(t, 2), x, y
}

// denseMulti is an independent dense computation of the joint posterior
// mode of the C latent GPs (BFGS on the whitened objective, f^c = L v^c
// with K = LLᵀ) and of Laplace's log marginal likelihood there with the
// full nC × nC matrices.
func denseMulti(t *testing.T, K *mat.SymDense, y []int, C int) (f [][]float64, logq, logdet float64, W *mat.Dense) {
	n := K.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("K not positive definite")
	}
	var L mat.TriDense
	ch.LTo(&L)
	unwhiten := func(v []float64) [][]float64 {
		f := make([][]float64, C)
		for c := range C {
			fv := mat.NewVecDense(n, nil)
			fv.MulVec(&L, mat.NewVecDense(n, v[c*n:(c+1)*n]))
			f[c] = fv.RawVector().Data
		}
		return f
	}
	loglik := func(f [][]float64) (float64, [][]float64) {
		lp := 0.0
		g := make([][]float64, C)
		for c := range g {
			g[c] = make([]float64, n)
		}
		for i := range n {
			z := 0.0
			for c := range C {
				z += math.Exp(f[c][i])
			}
			lp += f[y[i]][i] - math.Log(z)
			for c := range C {
				g[c][i] = -math.Exp(f[c][i]) / z
			}
			g[y[i]][i]++
		}
		return lp, g
	}
	prob := optimize.Problem{
		Func: func(v []float64) float64 {
			lp, _ := loglik(unwhiten(v))
			return -lp + 0.5*mat.Dot(mat.NewVecDense(len(v), v), mat.NewVecDense(len(v), v))
		},
		Grad: func(grad, v []float64) {
			_, g := loglik(unwhiten(v))
			for c := range C {
				gv := mat.NewVecDense(n, nil)
				gv.MulVec(L.T(), mat.NewVecDense(n, g[c]))
				for i := range n {
					grad[c*n+i] = -gv.AtVec(i) + v[c*n+i]
				}
			}
		},
	}
	// BFGS may stop on its line search at working precision; the
	// gradient it reached is what counts: the whitened Hessian is ≥ I, so v
	// is within that gradient of the mode.
	res, err := optimize.Minimize(prob, make([]float64, n*C), &optimize.Settings{GradientThreshold: 1e-10}, &optimize.BFGS{})
	if res == nil {
		t.Fatal(err)
	}
	g := make([]float64, n*C)
	prob.Grad(g, res.X)
	if gn := mat.Norm(mat.NewVecDense(len(g), g), math.Inf(1)); gn > 1e-7 {
		t.Fatalf("dense BFGS stopped at gradient %v: %v", gn, err)
	}
	f = unwhiten(res.X)
	logq, logdet, W = denseMultiLaplace(t, K, y, f)
	return f, logq, logdet, W
}

// denseMultiLaplace is Laplace's log marginal likelihood at latent values f with
// the full nC × nC matrices: log p(y | f) − ½ Σ_c fᶜᵀK⁻¹fᶜ − ½ log|I +
// K_full W|, and that determinant and W = D − ΠΠᵀ.
func denseMultiLaplace(t *testing.T, K *mat.SymDense, y []int, f [][]float64) (logq, logdet float64, W *mat.Dense) {
	n, C := K.SymmetricDim(), len(f)
	var ch mat.Cholesky
	if !ch.Factorize(K) {
		t.Fatal("K not positive definite")
	}
	lp := 0.0
	for i := range n {
		z := 0.0
		for c := range C {
			z += math.Exp(f[c][i])
		}
		lp += f[y[i]][i] - math.Log(z)
	}
	// Dense K_full, W = D − ΠΠᵀ and log|I + K_full W|.
	N := n * C
	Kf := mat.NewDense(N, N, nil)
	W = mat.NewDense(N, N, nil)
	for c := range C {
		for i := range n {
			for j := range n {
				Kf.Set(c*n+i, c*n+j, K.At(i, j))
			}
		}
	}
	for i := range n {
		z := 0.0
		for c := range C {
			z += math.Exp(f[c][i])
		}
		for c := range C {
			pc := math.Exp(f[c][i]) / z
			for e := range C {
				pe := math.Exp(f[e][i]) / z
				v := -pc * pe
				if c == e {
					v += pc
				}
				W.Set(c*n+i, e*n+i, v)
			}
		}
	}
	A := mat.NewDense(N, N, nil)
	A.Mul(Kf, W)
	for i := range N {
		A.Set(i, i, A.At(i, i)+1)
	}
	var lu mat.LU
	lu.Factorize(A)
	logdet, _ = lu.LogDet()
	quad := 0.0
	for c := range C {
		var kinvf mat.VecDense
		if err := ch.SolveVecTo(&kinvf, mat.NewVecDense(n, f[c])); err != nil {
			t.Fatal(err)
		}
		quad += mat.Dot(&kinvf, mat.NewVecDense(n, f[c]))
	}
	return lp - 0.5*quad - 0.5*logdet, logdet, W
}

// TestMultiLaplaceDense: the block-structured mode, log|I + KW| and
// Laplace's log marginal equal the dense computation, and so do the
// predictive means and covariances (Algorithm 3.4 against
// K** − K*ᵀW(I + K_full W)⁻¹K* built densely).
func TestMultiLaplaceDense(t *testing.T) {
	const n, C = 12, 3
	k, x, y := multiProblem(t, n, C, 21)
	K, _ := kernels.Gram(k, x)
	p, err := MultiLaplaceMode(K, y, C)
	if err != nil {
		t.Fatal(err)
	}
	f, logqB, _, _ := denseMulti(t, K, y, C)
	for c := range C {
		for i := range n {
			if d := math.Abs(p.F[c][i] - f[c][i]); d > 1e-6 {
				t.Fatalf("mode f[%d][%d] = %v, dense BFGS %v", c, i, p.F[c][i], f[c][i])
			}
		}
	}
	// log q at the BFGS mode differs by the non-stationary ½log|I + KW|
	// term times the mode's error (~1e-7); at the same f, to rounding.
	if math.Abs(p.LogQ-logqB) > 1e-6 {
		t.Errorf("log q = %.12g, at the dense BFGS mode %.12g", p.LogQ, logqB)
	}
	logq, logdet, W := denseMultiLaplace(t, K, y, p.F)
	if math.Abs(p.LogDet-logdet) > 1e-10 {
		t.Errorf("log|I + KW| = %.12g, dense %.12g", p.LogDet, logdet)
	}
	if math.Abs(p.LogQ-logq) > 1e-10 {
		t.Errorf("log q = %.12g, dense %.12g", p.LogQ, logq)
	}
	// Algorithm 3.3 as printed leaves out log|M|; here it matters.
	if lm := p.lm.LogDet(); math.Abs(lm) < 1e-2 {
		t.Errorf("log|M| = %v: the test does not tell the corrected determinant from the printed one", lm)
	}
	// Predictions at 4 new points.
	xs, _ := testData(4, 2, 22)
	ks, _ := kernels.Cross(k, xs, x)
	kss := make([]float64, 4)
	for j := range kss {
		kss[j] = k.Eval(xs.RawRowView(j), xs.RawRowView(j))
	}
	mean, cov := p.Predict(ks, kss)
	N := n * C
	Kf := mat.NewDense(N, N, nil)
	for c := range C {
		for i := range n {
			for j := range n {
				Kf.Set(c*n+i, c*n+j, K.At(i, j))
			}
		}
	}
	A := mat.NewDense(N, N, nil)
	A.Mul(Kf, W)
	for i := range N {
		A.Set(i, i, A.At(i, i)+1)
	}
	var Ainv, R mat.Dense
	if err := Ainv.Inverse(A); err != nil {
		t.Fatal(err)
	}
	R.Mul(W, &Ainv)
	for j := range 4 {
		Q := mat.NewDense(N, C, nil)
		for c := range C {
			for i := range n {
				Q.Set(c*n+i, c, ks.At(j, i))
			}
		}
		var RQ, QRQ mat.Dense
		RQ.Mul(&R, Q)
		QRQ.Mul(Q.T(), &RQ)
		for c := range C {
			// mean: k*ᵀ(yᶜ − πᶜ), a different route from k*ᵀâᶜ.
			m := 0.0
			for i := range n {
				t := 0.0
				if y[i] == c {
					t = 1
				}
				m += ks.At(j, i) * (t - p.Pi[c][i])
			}
			if math.Abs(mean[j][c]-m) > 1e-8 {
				t.Errorf("point %d class %d: mean %v, dense %v", j, c, mean[j][c], m)
			}
			for e := range C {
				want := -QRQ.At(c, e)
				if c == e {
					want += kss[j]
				}
				if math.Abs(cov[j][c*C+e]-want) > 1e-9 {
					t.Errorf("point %d cov[%d][%d] = %v, dense %v", j, c, e, cov[j][c*C+e], want)
				}
			}
		}
	}
}

// TestMultiLaplaceGrad checks the gradient in the kernel's hyperparameters
// (explicit and implicit terms) against central differences.
func TestMultiLaplaceGrad(t *testing.T) {
	const n, C = 10, 3
	k, x, y := multiProblem(t, n, C, 31)
	nh := k.NumHyper()
	h := k.Hyper(nil)
	grad := make([]float64, nh)
	if _, _, err := MultiLaplace(k, x, y, C, grad); err != nil {
		t.Fatal(err)
	}
	for j := range nh {
		eps := 1e-5 * math.Max(1, math.Abs(h[j]))
		at := func(d float64) float64 {
			hh := append([]float64(nil), h...)
			hh[j] += d
			kk, err := k.WithHyper(hh)
			if err != nil {
				t.Fatal(err)
			}
			v, _, err := MultiLaplace(kk, x, y, C, nil)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		fd := (at(eps) - at(-eps)) / (2 * eps)
		if math.Abs(fd-grad[j]) > 1e-6*math.Max(1, math.Abs(fd)) {
			t.Errorf("hyper %d: gradient %.10g, finite difference %.10g", j, grad[j], fd)
		}
	}
}

// TestMultiTwoClassIsBinary: with C = 2, f¹ − f² ~ GP(0, 2K) carries all
// the likelihood's information and f¹ + f² is independent of it a priori,
// so Laplace's approximation of the softmax model equals the binary
// logistic one with kernel 2K (labels: class 1 ↔ +1): the same log
// marginal (Laplace's evidence is invariant under the linear change of
// variables, and the f¹ + f² part integrates to 1), the same gradient, and
// the same predictive of f¹ − f²; the class probabilities match the
// exact 1-d integral of σ over that predictive to Monte Carlo accuracy.
func TestMultiTwoClassIsBinary(t *testing.T) {
	const n = 14
	k, x, y := multiProblem(t, n, 2, 41)
	nh := k.NumHyper()
	grad := make([]float64, nh)
	logq, p, err := MultiLaplace(k, x, y, 2, grad)
	if err != nil {
		t.Fatal(err)
	}
	K, _ := kernels.Gram(k, x)
	K2 := mat.NewSymDense(n, nil)
	K2.ScaleSym(2, K)
	yb := make([]float64, n)
	for i, v := range y {
		yb[i] = 1
		if v == 1 {
			yb[i] = -1
		}
	}
	gb := make([]float64, nh)
	post, err := LaplaceApprox{}.Fit(K2, yb, Lik{Kind: Logit}, Needs{Gradient: true, Predictive: true})
	if err != nil {
		t.Fatal(err)
	}
	lb := post.LogZ
	Contract(gb, k, x, post.W)
	for i := range gb {
		gb[i] *= 2 // ∂(2K)/∂h = 2∂K/∂h
	}
	if math.Abs(logq-lb) > 1e-9 {
		t.Errorf("C = 2 log q %.12g, binary with 2K %.12g", logq, lb)
	}
	for j := range grad {
		if math.Abs(grad[j]-gb[j]) > 1e-7*math.Max(1, math.Abs(gb[j])) {
			t.Errorf("hyper %d: C = 2 gradient %.10g, binary %.10g", j, grad[j], gb[j])
		}
	}
	alpha, R := post.Alpha, post.r
	xs, _ := testData(5, 2, 42)
	ks, _ := kernels.Cross(k, xs, x)
	kss := make([]float64, 5)
	for j := range kss {
		kss[j] = k.Eval(xs.RawRowView(j), xs.RawRowView(j))
	}
	mean, cov := p.Predict(ks, kss)
	r := rng.New(43, testStream)
	for j := range 5 {
		var k2 mat.VecDense
		k2.ScaleVec(2, ks.RowView(j))
		mb := mat.Dot(&k2, mat.NewVecDense(n, alpha))
		var rk mat.VecDense
		rk.MulVec(R, &k2)
		vb := 2*kss[j] - mat.Dot(&k2, &rk)
		mg := mean[j][0] - mean[j][1]
		vg := cov[j][0] + cov[j][3] - 2*cov[j][1]
		if math.Abs(mg-mb) > 1e-8 || math.Abs(vg-vb) > 1e-8 {
			t.Errorf("point %d: f¹ − f² ~ N(%.10g, %.10g), binary with 2K N(%.10g, %.10g)", j, mg, vg, mb, vb)
		}
		// E σ(g), g ~ N(mb, vb), by the trapezoid rule on ±10 sd.
		exact := 0.0
		const m = 4001
		for q := range m {
			z := -10 + 20*float64(q)/(m-1)
			w := 1.0
			if q == 0 || q == m-1 {
				w = 0.5
			}
			exact += w * 20 / (m - 1) * math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) / (1 + math.Exp(-(mb + math.Sqrt(vb)*z)))
		}
		const draws = 20000
		pr := SoftmaxAverage(mean[j], cov[j], draws, r)
		if s := pr[0] + pr[1]; math.Abs(s-1) > 1e-12 {
			t.Errorf("point %d: probabilities sum to %v", j, s)
		}
		// σ is monotone, so an antithetic pair's two values are negatively
		// correlated and the plain Monte Carlo error bounds the error.
		se := math.Sqrt(exact * (1 - exact) / draws)
		if math.Abs(pr[0]-exact) > 4*se+1e-9 {
			t.Errorf("point %d: P(class 1) = %v, exact %v (4 se = %.2g)", j, pr[0], exact, 4*se)
		}
	}
}

// TestSoftmaxAverageSums: the predictive probabilities of 5 classes under
// a correlated covariance sum to 1, and a point mass gives the softmax.
func TestSoftmaxAverageSums(t *testing.T) {
	r := rng.New(51, testStream)
	mean := []float64{0.3, -1, 2, 0, 0.5}
	A := mat.NewDense(5, 5, nil)
	for i := range 5 {
		for j := range 5 {
			A.Set(i, j, r.NormFloat64())
		}
	}
	var S mat.SymDense
	S.SymOuterK(1, A)
	pr := SoftmaxAverage(mean, S.RawSymmetric().Data, 1000, r)
	s := 0.0
	for _, v := range pr {
		s += v
	}
	if math.Abs(s-1) > 1e-12 {
		t.Errorf("probabilities sum to %v", s)
	}
	pr = SoftmaxAverage(mean, make([]float64, 25), 10, r)
	want := make([]float64, 5)
	softmax(want, mean)
	for c := range want {
		// softmax written out here: exp(mean_c) / Σ exp.
		z := 0.0
		for _, m := range mean {
			z += math.Exp(m)
		}
		if math.Abs(pr[c]-math.Exp(mean[c])/z) > 1e-9 {
			t.Errorf("zero covariance: class %d %v, softmax %v", c, pr[c], math.Exp(mean[c])/z)
		}
	}
}

// TestSoftmaxAverageQuadrature: with three classes and a correlated
// covariance, the Monte Carlo average of the softmax agrees with a 3-d
// Gauss–Hermite product rule (30 nodes per axis) in the covariance's
// eigenbasis, an independent factorisation, to Monte Carlo accuracy.
func TestSoftmaxAverageQuadrature(t *testing.T) {
	mean := []float64{0.5, -0.3, 0.1}
	S := mat.NewSymDense(3, []float64{2, 0.8, -0.5, 0.8, 1.5, 0.3, -0.5, 0.3, 1})
	var eig mat.EigenSym
	if !eig.Factorize(S, true) {
		t.Fatal("eigendecomposition failed")
	}
	vals := eig.Values(nil)
	var V mat.Dense
	eig.VectorsTo(&V)
	const m = 30
	x := make([]float64, m)
	w := make([]float64, m)
	quad.Hermite{}.FixedLocations(x, w, math.Inf(-1), math.Inf(1))
	exact := make([]float64, 3)
	f := make([]float64, 3)
	pr := make([]float64, 3)
	for a := range m {
		for b := range m {
			for c := range m {
				// ∫e^{−x²}g(x)dx rule: z = √2 x is standard normal, weight w/√π.
				z := []float64{math.Sqrt2 * x[a], math.Sqrt2 * x[b], math.Sqrt2 * x[c]}
				wt := w[a] * w[b] * w[c] / math.Pow(math.Pi, 1.5)
				for i := range 3 {
					f[i] = mean[i]
					for j := range 3 {
						f[i] += V.At(i, j) * math.Sqrt(vals[j]) * z[j]
					}
				}
				z0 := math.Exp(f[0]) + math.Exp(f[1]) + math.Exp(f[2])
				for i := range 3 {
					pr[i] = math.Exp(f[i]) / z0
					exact[i] += wt * pr[i]
				}
			}
		}
	}
	const draws = 100000
	got := SoftmaxAverage(mean, S.RawSymmetric().Data, draws, rng.New(71, testStream))
	for i := range 3 {
		// draws/2 antithetic pairs: the pair mean's variance is at most
		// that of one draw, p(1 − p), whatever the pair's correlation.
		se := math.Sqrt(2 * exact[i] * (1 - exact[i]) / draws)
		if math.Abs(got[i]-exact[i]) > 4*se {
			t.Errorf("class %d: Monte Carlo %v, quadrature %v (4 se = %.2g)", i+1, got[i], exact[i], 4*se)
		}
	}
}

// TestMultiLaplaceErrors: labels outside 1..C and C < 2 are refused.
func TestMultiLaplaceErrors(t *testing.T) {
	k, x, y := multiProblem(t, 6, 3, 61)
	K, _ := kernels.Gram(k, x)
	y[2] = 3
	if _, err := MultiLaplaceMode(K, y, 3); err == nil || !strings.Contains(err.Error(), "label 3 is 4, not a class from 1 to 3") {
		t.Errorf("label 4 of 3 classes: %v", err)
	}
	y[2] = -1
	if _, err := MultiLaplaceMode(K, y, 3); err == nil || !strings.Contains(err.Error(), "not a class") {
		t.Errorf("label 0: %v", err)
	}
	y[2] = 0
	if _, err := MultiLaplaceMode(K, y, 1); err == nil || !strings.Contains(err.Error(), "at least 2 classes") {
		t.Errorf("C = 1: %v", err)
	}
}
