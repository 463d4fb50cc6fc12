package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// Direct transcriptions of the estimators, entry by entry.
func directMMD(k kernels.Kernel, x, y *mat.Dense, est Estimator) float64 {
	m, _ := x.Dims()
	n, _ := y.Dims()
	kk := func(a, b []float64) float64 { return k.Eval(a, b) }
	var sxx, syy, sxy float64
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			if i != j || est == Biased {
				sxx += kk(x.RawRowView(i), x.RawRowView(j))
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i != j || est == Biased {
				syy += kk(y.RawRowView(i), y.RawRowView(j))
			}
		}
		for j := 0; j < m; j++ {
			sxy += kk(x.RawRowView(j), y.RawRowView(i))
		}
	}
	fm, fn := float64(m), float64(n)
	if est == Biased {
		return sxx/(fm*fm) + syy/(fn*fn) - 2*sxy/(fm*fn)
	}
	return sxx/(fm*(fm-1)) + syy/(fn*(fn-1)) - 2*sxy/(fm*fn)
}

func TestMMDEstimators(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randomPoints(rng, 30, 2)
	y := randomPoints(rng, 23, 2)
	k := must(kernels.NewRBF([]float64{1.1}))
	for _, est := range []Estimator{Biased, Unbiased} {
		got, err := MMD2(k, x, y, est)
		if err != nil {
			t.Fatal(err)
		}
		if want := directMMD(k, x, y, est); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v, direct %v", est, got, want)
		}
	}
	got, _ := MMD2(k, x, y, Linear)
	want := 0.0
	for p := 0; p < 11; p++ { // min(30, 23)/2 pairs
		x1, x2, y1, y2 := x.RawRowView(2*p), x.RawRowView(2*p+1), y.RawRowView(2*p), y.RawRowView(2*p+1)
		want += (k.Eval(x1, x2) + k.Eval(y1, y2) - k.Eval(x1, y2) - k.Eval(x2, y1)) / 11
	}
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("linear: %v, direct %v", got, want)
	}
}

func TestHSICEstimators(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	n := 25
	x := randomPoints(rng, n, 2)
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, x.At(i, 0)*x.At(i, 1)+0.3*rng.NormFloat64())
	}
	kx, ky := must(kernels.NewRBF([]float64{1})), must(kernels.NewLaplacian([]float64{0.7}))
	K, _ := kernels.Gram(kx, x)
	L, _ := kernels.Gram(ky, y)
	// Biased: tr(KHLH)/n² with H formed explicitly.
	H := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			H.Set(i, j, -1/float64(n))
		}
		H.Set(i, i, 1-1/float64(n))
	}
	var a, b mat.Dense
	a.Mul(K, H)
	a.Mul(&a, L)
	b.Mul(&a, H)
	wantB := mat.Trace(&b) / float64(n*n)
	if got, _ := HSIC(kx, ky, x, y, Biased); math.Abs(got-wantB) > 1e-12 {
		t.Errorf("biased HSIC %v, direct %v", got, wantB)
	}
	// Unbiased (Song et al. 2012, eq. 5) with explicit zero-diagonal
	// matrices.
	Kt, Lt := mat.DenseCopyOf(K), mat.DenseCopyOf(L)
	for i := 0; i < n; i++ {
		Kt.Set(i, i, 0)
		Lt.Set(i, i, 0)
	}
	ones := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		ones.SetVec(i, 1)
	}
	var kl mat.Dense
	kl.Mul(Kt, Lt)
	fn := float64(n)
	sumK, sumL := mat.Sum(Kt), mat.Sum(Lt)
	wantU := (mat.Trace(&kl) + sumK*sumL/((fn-1)*(fn-2)) - 2/(fn-2)*mat.Inner(ones, &kl, ones)) / (fn * (fn - 3))
	if got, _ := HSIC(kx, ky, x, y, Unbiased); math.Abs(got-wantU) > 1e-12 {
		t.Errorf("unbiased HSIC %v, direct %v", got, wantU)
	}
}

func TestHSICGammaAgreesWithPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	n := 150
	x := randomPoints(rng, n, 1)
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, 0.15*x.At(i, 0)+rng.NormFloat64()) // weak dependence
	}
	k := must(kernels.NewRBF([]float64{1}))
	perm, _ := HSICTest(context.Background(), k, k, x, y, Permutation, Settings{Permutations: 2000, Seed: 3})
	gam, _ := HSICTest(context.Background(), k, k, x, y, Gamma, Settings{})
	t.Logf("p-values: permutation %.4f, gamma %.4f", perm.PValue, gam.PValue)
	if math.Abs(perm.PValue-gam.PValue) > 0.05 {
		t.Errorf("gamma p-value %.4f far from the permutation p-value %.4f", gam.PValue, perm.PValue)
	}
	if perm.Statistic != gam.Statistic {
		t.Errorf("the statistics differ: %v and %v", perm.Statistic, gam.Statistic)
	}
}

func TestTestsAreReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 30))
	x, y := randomPoints(rng, 40, 2), randomPoints(rng, 35, 2)
	k := must(kernels.NewRBF([]float64{1}))
	a, _ := MMDTest(context.Background(), k, x, y, Settings{Permutations: 200, Seed: 5, Workers: 1})
	b, _ := MMDTest(context.Background(), k, x, y, Settings{Permutations: 200, Seed: 5, Workers: 2})
	if a.PValue != b.PValue {
		t.Errorf("p-values %v and %v with 1 and 2 workers", a.PValue, b.PValue)
	}
}

func TestTestInputErrors(t *testing.T) {
	k := must(kernels.NewRBF([]float64{1}))
	if _, err := MMDTest(context.Background(), k, mat.NewDense(3, 2, nil), mat.NewDense(3, 1, nil), Settings{}); err == nil {
		t.Error("mismatched columns accepted")
	}
	if _, err := HSICTest(context.Background(), k, k, mat.NewDense(5, 1, nil), mat.NewDense(6, 1, nil), Permutation, Settings{}); err == nil {
		t.Error("unpaired samples accepted")
	}
	if _, err := MMD2(k, mat.NewDense(1, 1, nil), mat.NewDense(3, 1, nil), Unbiased); err == nil {
		t.Error("one-row sample accepted by the unbiased MMD")
	}
}

func must[K any](k K, err error) K {
	if err != nil {
		panic(err)
	}
	return k
}

func randomPoints(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

func TestPermutationTestsAreCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	x, y := randomPoints(rng, 40, 1), randomPoints(rng, 40, 1)
	k := must(kernels.NewRBF([]float64{1}))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MMDTest(ctx, k, x, y, Settings{}); err != context.Canceled {
		t.Errorf("MMDTest: error %v, want context.Canceled", err)
	}
	if _, err := MMDAggregateTest(ctx, x, y, Settings{}); err != context.Canceled {
		t.Errorf("MMDAggregateTest: error %v, want context.Canceled", err)
	}
	if _, err := HSICTest(ctx, k, k, x, y, Permutation, Settings{}); err != context.Canceled {
		t.Errorf("HSICTest: error %v, want context.Canceled", err)
	}
	if _, err := HSICTest(ctx, k, k, x, y, Gamma, Settings{}); err != nil {
		t.Errorf("HSICTest with the gamma null (no permutations): error %v", err)
	}
}
