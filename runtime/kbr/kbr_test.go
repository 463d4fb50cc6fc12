package kbr

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// gauss is the test's own Gaussian kernel, written apart from package
// kernels so the dense formulas below check the whole chain.
func gauss(ell float64) func(a, b []float64) float64 {
	return func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return math.Exp(-s / (2 * ell * ell))
	}
}

func denseGram(k func(a, b []float64) float64, x, y *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	m, _ := y.Dims()
	g := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			g.Set(i, j, k(x.RawRowView(i), y.RawRowView(j)))
		}
	}
	return g
}

func inverse(t *testing.T, a mat.Matrix) *mat.Dense {
	t.Helper()
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	return &inv
}

func randMat(r *rand.Rand, n, d int, scale float64) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, scale*r.NormFloat64())
		}
	}
	return m
}

// joint draws X ~ N(0, I) in 2-D and Y = (sin X_1 + X_2, X_1 X_2) + noise.
func joint(r *rand.Rand, n int) (*mat.Dense, *mat.Dense) {
	x := randMat(r, n, 2, 1)
	y := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, math.Sin(x.At(i, 0))+x.At(i, 1)+0.3*r.NormFloat64())
		y.Set(i, 1, x.At(i, 0)*x.At(i, 1)+0.3*r.NormFloat64())
	}
	return x, y
}

func rbf(t *testing.T, ell float64) kernels.Kernel {
	k, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

func maxAbs(a mat.Matrix) float64 {
	r, c := a.Dims()
	m := 0.0
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}

// densePosterior is MATH.md §3 written out with explicit inverses.
func densePosterior(t *testing.T, x, y, u *mat.Dense, gamma []float64, ellX, ellY, eps, delta float64, ys *mat.Dense) (*mat.Dense, []float64) {
	n, _ := x.Dims()
	gx := denseGram(gauss(ellX), x, x)
	gy := denseGram(gauss(ellY), y, y)
	m := mat.NewVecDense(n, nil)
	m.MulVec(denseGram(gauss(ellX), x, u), mat.NewVecDense(len(gamma), gamma))
	reg := mat.NewDense(n, n, nil)
	reg.Add(gx, scaledIdentity(n, float64(n)*eps))
	mu := mat.NewVecDense(n, nil)
	mu.MulVec(inverse(t, reg), m)
	lam := mat.NewDiagDense(n, mu.RawVector().Data)
	var lg, lg2, r mat.Dense
	lg.Mul(lam, gy)
	lg2.Mul(&lg, &lg)
	lg2.Add(&lg2, scaledIdentity(n, delta))
	r.Mul(&lg, inverse(t, &lg2))
	r.Mul(&r, lam)
	var w mat.Dense
	w.Mul(&r, denseGram(gauss(ellY), y, ys))
	return &w, mu.RawVector().Data
}

func scaledIdentity(n int, c float64) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, c)
	}
	return m
}

func TestPosteriorMatchesDenseFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 1))
	x, y := joint(r, 60)
	u := randMat(r, 25, 2, 0.7)
	gamma := make([]float64, 25)
	for j := range gamma {
		gamma[j] = (r.Float64() - 0.2) / 10 // some negative, as after a filter step
	}
	ys := randMat(r, 4, 2, 1)
	const ellX, ellY, eps, delta = 0.9, 1.3, 0.01, 0.002
	want, wantMu := densePosterior(t, x, y, u, gamma, ellX, ellY, eps, delta, ys)
	p, err := New(x, y, rbf(t, ellX), rbf(t, ellY), Prior{U: u, Weights: gamma}, Settings{Eps: eps, Delta: delta})
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(mat.NewVecDense(len(wantMu), wantMu), mat.NewVecDense(len(p.Mu), p.Mu)); d > 1e-9*maxAbs(mat.NewVecDense(len(wantMu), wantMu)) {
		t.Errorf("μ differs from (G_X + nεI)⁻¹m by %g", d)
	}
	got, err := p.Condition(ys)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(got, want); d > 1e-7*maxAbs(want) {
		t.Errorf("posterior weights differ from the dense formula by %g (scale %g)", d, maxAbs(want))
	}
	// One observation at a time gives the columns of the batch.
	one, err := p.Condition(mat.DenseCopyOf(ys.Slice(2, 3, 0, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(one, got.Slice(0, 60, 2, 3)); d > 1e-12 {
		t.Errorf("conditioning one by one differs from the batch by %g", d)
	}
}

func TestEqualPriorWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	x, y := joint(r, 30)
	u := randMat(r, 8, 2, 1)
	eq := make([]float64, 8)
	for j := range eq {
		eq[j] = 1.0 / 8
	}
	s := Settings{Eps: 0.05, Delta: 0.01}
	a, err := New(x, y, rbf(t, 1), rbf(t, 1), Prior{U: u}, s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(x, y, rbf(t, 1), rbf(t, 1), Prior{U: u, Weights: eq}, s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Mu {
		if a.Mu[i] != b.Mu[i] {
			t.Fatalf("nil weights are not 1/ℓ: μ_%d %g vs %g", i, a.Mu[i], b.Mu[i])
		}
	}
}

func TestCMEMatchesDenseFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	x, y := joint(r, 50)
	ys := randMat(r, 3, 2, 1)
	const ell, eps = 1.1, 0.02
	gy := denseGram(gauss(ell), y, y)
	gy.Add(gy, scaledIdentity(50, 50*eps))
	var want mat.Dense
	want.Mul(inverse(t, gy), denseGram(gauss(ell), y, ys))
	c, err := NewCME(x, y, rbf(t, ell), Settings{Eps: eps})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Condition(ys)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(got, &want); d > 1e-9*maxAbs(&want) {
		t.Errorf("CME weights differ from (G_Y + nεI)⁻¹k_Y(y) by %g", d)
	}
}

// At full rank the Woodbury forms are identities, so the low-rank path must
// reproduce the exact one to rounding.
func TestLowRankFullRankIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	x, y := joint(r, 40)
	ys := randMat(r, 3, 2, 1)
	// Wide kernels make the Gram matrices numerically low-rank; narrow ones
	// keep every pivot, so the factor is a full Cholesky.
	kx, ky := rbf(t, 0.15), rbf(t, 0.15)
	s := Settings{Eps: 0.01, Delta: 0.01}
	ex, err := New(x, y, kx, ky, Prior{U: x}, s)
	if err != nil {
		t.Fatal(err)
	}
	s.Rank, s.Tol = 40, 1e-300
	lr, err := New(x, y, kx, ky, Prior{U: x}, s)
	if err != nil {
		t.Fatal(err)
	}
	we, _ := ex.Condition(ys)
	wl, _ := lr.Condition(ys)
	if d := maxAbsDiff(we, wl); d > 1e-8*maxAbs(we) {
		t.Errorf("full-rank low-rank weights differ from exact by %g (scale %g)", d, maxAbs(we))
	}
	ce, _ := NewCME(x, y, ky, Settings{Eps: 0.01})
	cl, _ := NewCME(x, y, ky, Settings{Eps: 0.01, Rank: 40, Tol: 1e-300})
	a, _ := ce.Condition(ys)
	b, _ := cl.Condition(ys)
	if d := maxAbsDiff(a, b); d > 1e-8*maxAbs(a) {
		t.Errorf("full-rank low-rank CME differs from exact by %g", d)
	}
}

func TestNormaliseAndMean(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 1, 2, 3, 4, 5})
	w := []float64{0.5, -0.25, 1.25} // sum 1.5
	m, err := Mean(x, w, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{(0.5*0 - 0.25*2 + 1.25*4) / 1.5, (0.5*1 - 0.25*3 + 1.25*5) / 1.5}
	for j := range want {
		if math.Abs(m[j]-want[j]) > 1e-14 {
			t.Errorf("mean[%d] = %g, want %g", j, m[j], want[j])
		}
	}
	raw, _ := Mean(x, w, false)
	if math.Abs(raw[0]-1.5*want[0]) > 1e-14 {
		t.Errorf("raw mean %g, want %g", raw[0], 1.5*want[0])
	}
	if _, err := Normalise([]float64{1, -1}); err == nil {
		t.Error("weights summing to 0 were normalised")
	}
	if _, err := Normalise([]float64{-1, -2}); err == nil {
		t.Error("weights with a negative sum were normalised")
	}
}

func laplacian(t *testing.T) kernels.Kernel {
	k, err := kernels.NewLaplacian([]float64{1})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestExactSizeLimit(t *testing.T) {
	x := mat.NewDense(MaxExact+1, 1, nil)
	for i := 0; i <= MaxExact; i++ {
		x.Set(i, 0, float64(i))
	}
	if _, err := New(x, x, rbf(t, 1), rbf(t, 1), Prior{U: x}, Settings{Eps: 1, Delta: 1}); err == nil || !strings.Contains(err.Error(), "use a low rank") {
		t.Errorf("exact KBR on %d pairs: %v", MaxExact+1, err)
	}
	if _, err := NewCME(x, x, rbf(t, 1), Settings{Eps: 1}); err == nil {
		t.Error("exact CME above the limit was accepted")
	}
	if _, err := NewFilter(x, x, rbf(t, 1), rbf(t, 1), Settings{Eps: 1, Delta: 1}, TransitionSample); err == nil {
		t.Error("exact filter above the limit was accepted")
	}
}
