package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The batched null against the statistic recomputed for each permutation
// by the entry-by-entry MMD of the relabelled samples.
func TestLabelNullMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	x, y := randomPoints(rng, 23, 2), randomPoints(rng, 17, 2)
	k := must(kernels.NewRBF([]float64{0.9}))
	z := mat.NewDense(40, 2, nil)
	z.Stack(x, y)
	g, _ := kernels.GramFull(k, z)
	for _, est := range []Estimator{Unbiased, Biased} {
		// More than nullChunk permutations: two chunks.
		s := Settings{Permutations: nullChunk + 76, Seed: 3, Estimator: est}.withDefaults(est)
		f := newExactForms(append([]float64(nil), g...), 40)
		f.tile = 16 // several tiles, one partial
		obs, null, err := labelNull(context.Background(), f, 23, s)
		if err != nil {
			t.Fatal(err)
		}
		if want := directMMD(k, x, y, est); math.Abs(obs-want) > 1e-12 {
			t.Errorf("%s: observed %v, direct %v", est, obs, want)
		}
		perm := make([]int, 40)
		for b, v := range null {
			shuffled(3, b, perm)
			px, py := mat.NewDense(23, 2, nil), mat.NewDense(17, 2, nil)
			for i, r := range perm {
				if i < 23 {
					px.SetRow(i, z.RawRowView(r))
				} else {
					py.SetRow(i-23, z.RawRowView(r))
				}
			}
			if want := directMMD(k, px, py, est); math.Abs(v-want) > 1e-12 {
				t.Fatalf("%s: permutation %d: %v, direct %v", est, b, v, want)
			}
		}
	}
}

// Features Φ with K = ΦΦᵀ exactly give the same null as the matrix K.
func TestFeatureFormsMatchExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	const n, r = 30, 4
	phi := make([]float64, n*r)
	for i := range phi {
		phi[i] = rng.NormFloat64()
	}
	g := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for c := 0; c < r; c++ {
				g[i*n+j] += phi[i*r+c] * phi[j*r+c]
			}
		}
	}
	for _, est := range []Estimator{Unbiased, Biased} {
		s := Settings{Permutations: 50, Seed: 4, Estimator: est}.withDefaults(est)
		o1, n1, _ := labelNull(context.Background(), newExactForms(g, n), 12, s)
		o2, n2, _ := labelNull(context.Background(), newFeatureForms(phi, n, r), 12, s)
		if math.Abs(o1-o2) > 1e-10 {
			t.Errorf("%s: observed %v and %v", est, o1, o2)
		}
		for b := range n1 {
			if math.Abs(n1[b]-n2[b]) > 1e-10 {
				t.Fatalf("%s: permutation %d: %v and %v", est, b, n1[b], n2[b])
			}
		}
	}
}

// The HSIC statistic of permuted y against tr(K H L_π H)/n² (and the
// unbiased estimator) computed on explicitly permuted data, on every
// vector path (the rows' inner products go through gdot: FMA on AVX2 and
// AVX-512, not on the Go path; 1e-12 covers both).
func TestHSICPermutedMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	n := 45
	x, y := randomPoints(rng, n, 2), randomPoints(rng, n, 1)
	kx, ky := must(kernels.NewRBF([]float64{1.2})), must(kernels.NewRBF([]float64{0.6}))
	for _, est := range []Estimator{Biased, Unbiased} {
		kg, lg, _ := hsicGrams(kx, ky, x, y, est)
		h := newHSICState(kg, lg, n, est)
		perm := make([]int, n)
		for b := 0; b < 5; b++ {
			shuffled(9, b, perm)
			yp := mat.NewDense(n, 1, nil)
			for i, p := range perm {
				yp.SetRow(i, y.RawRowView(p))
			}
			want := directHSIC(kx, ky, x, yp, est)
			for _, l := range cpufeat.Levels() {
				restore := cpufeat.Use(l)
				got := h.stat(perm)
				restore()
				if math.Abs(got-want) > 1e-12 {
					t.Errorf("%s %v: permutation %d: %v, direct %v", est, l, b, got, want)
				}
			}
		}
	}
}

// The min-p combination against a brute-force count on a small table.
func TestAggregateCombination(t *testing.T) {
	// stats[k][c]: two kernels, the data (c = 0) and 9 permutations.
	stats := [][]float64{
		{5, 1, 2, 3, 4, 6, 0, 0.5, 1.5, 2.5},
		{9, 1, 2, 3, 4, 5, 6, 7, 8, 10},
	}
	var res Result
	aggregate(stats, 0.2, &res)
	nc := 10
	rank := func(k, c int) float64 {
		cnt := 0
		for _, v := range stats[k] {
			if v >= stats[k][c] {
				cnt++
			}
		}
		return float64(cnt) / float64(nc)
	}
	minp := make([]float64, nc)
	for c := range minp {
		minp[c] = math.Min(rank(0, c), rank(1, c))
	}
	cnt := 0
	for _, v := range minp {
		if v <= minp[0] {
			cnt++
		}
	}
	if want := float64(cnt) / float64(nc); res.PValue != want {
		t.Errorf("p-value %v, brute force %v", res.PValue, want)
	}
	if res.PValues[0] != rank(0, 0) || res.PValues[1] != rank(1, 0) {
		t.Errorf("per-kernel p-values %v", res.PValues)
	}
	// Threshold: the largest min-p value u with #{minp ≤ u} ≤ 0.2·10.
	want := 0.0
	for _, u := range minp {
		c := 0
		for _, v := range minp {
			if v <= u {
				c++
			}
		}
		if c <= 2 && u > want {
			want = u
		}
	}
	if res.Threshold != want {
		t.Errorf("threshold %v, brute force %v", res.Threshold, want)
	}
	if (res.PValue <= 0.2) != (res.Rejected[0] || res.Rejected[1]) {
		t.Errorf("p = %v but rejected %v at threshold %v", res.PValue, res.Rejected, res.Threshold)
	}
}

// The batched null does not depend on the number of cores, even when the
// BLAS product itself runs in parallel (N ≥ 256).
func TestNullIsTheSameOnAnyNumberOfCores(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	x, y := randomPoints(rng, 150, 3), randomPoints(rng, 140, 3)
	k := must(kernels.NewRBF([]float64{1.5}))
	run := func(procs, workers int) Result {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		r, err := MMDAggregateTest(context.Background(), x, y, Settings{Permutations: 100, Seed: 6, Workers: workers, Bandwidths: 3})
		if err != nil {
			t.Fatal(err)
		}
		r2, _ := MMDTest(context.Background(), k, x, y, Settings{Permutations: 100, Seed: 6, Workers: workers})
		r3, _ := MMDTest(context.Background(), k, x, y, Settings{Permutations: 100, Seed: 6, Workers: workers, Approx: Nystrom, Rank: 130})
		h := x.Slice(0, 140, 0, 3).(*mat.Dense)
		r4, _ := HSICTest(context.Background(), k, k, h, y, Permutation, Settings{Permutations: 100, Seed: 6, Workers: workers})
		r5, _ := HSICTest(context.Background(), k, k, h, y, Permutation, Settings{Permutations: 100, Seed: 6, Workers: workers, Approx: Nystrom, Rank: 70})
		r.Statistic = r2.Statistic + r3.Statistic + r4.Statistic + r5.Statistic
		r.PValue += r2.PValue + 10*r3.PValue + 100*r4.PValue + 1000*r5.PValue
		return r
	}
	a, b := run(1, 1), run(4, 3)
	if a.Statistic != b.Statistic || a.PValue != b.PValue {
		t.Errorf("1 core: %v, %v; 4 cores: %v, %v", a.Statistic, a.PValue, b.Statistic, b.PValue)
	}
	for i := range a.PValues {
		if a.PValues[i] != b.PValues[i] {
			t.Errorf("kernel %d: p-values %v and %v", i, a.PValues[i], b.PValues[i])
		}
	}
}

// The low-rank paths agree with the exact one on seeded data: the same
// permutations, so the p-values differ by the approximation only; allowed
// 3 Monte Carlo standard errors of a permutation p-value.
func TestLowRankAgreesWithExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 60))
	n, B := 200, 1000
	x, y := randomPoints(rng, n, 2), randomPoints(rng, n, 2)
	for i := 0; i < n; i++ {
		y.Set(i, 0, 0.8*y.At(i, 0)+0.15) // a weak difference: p in (0, 1)
	}
	k := must(kernels.NewRBF([]float64{1}))
	tol := func(p float64) float64 { return 3*math.Sqrt(p*(1-p)/float64(B)) + 1e-3 }
	ex, _ := MMDTest(context.Background(), k, x, y, Settings{Permutations: B, Seed: 2, Approx: Exact})
	for _, a := range []Approx{Nystrom, RFF} {
		rank := 100
		if a == RFF {
			rank = 2000
		}
		lr, err := MMDTest(context.Background(), k, x, y, Settings{Permutations: B, Seed: 2, Approx: a, Rank: rank})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("MMD %s: exact p %.4f, low-rank p %.4f", a, ex.PValue, lr.PValue)
		if math.Abs(lr.PValue-ex.PValue) > tol(ex.PValue) {
			t.Errorf("MMD %s: p-value %v, exact %v", a, lr.PValue, ex.PValue)
		}
	}
	// HSIC: a weak dependence.
	yy := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		yy.Set(i, 0, 0.25*x.At(i, 0)+rng.NormFloat64())
	}
	hx, _ := HSICTest(context.Background(), k, k, x, yy, Permutation, Settings{Permutations: B, Seed: 3, Approx: Exact})
	hl, err := HSICTest(context.Background(), k, k, x, yy, Permutation, Settings{Permutations: B, Seed: 3, Approx: Nystrom, Rank: 60})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("HSIC nystrom: exact p %.4f, low-rank p %.4f (statistics %v, %v)", hx.PValue, hl.PValue, hx.Statistic, hl.Statistic)
	if math.Abs(hl.PValue-hx.PValue) > tol(hx.PValue) {
		t.Errorf("HSIC nystrom: p-value %v, exact %v", hl.PValue, hx.PValue)
	}
	if hl.Approx != Nystrom || hl.Rank != 60 {
		t.Errorf("approx %q rank %d", hl.Approx, hl.Rank)
	}
}

// directHSIC is HSIC from explicit matrices: tr(KHLH)/n², or Song et al.'s
// unbiased estimator with explicit zero-diagonal K̃, L̃.
func directHSIC(kx, ky kernels.Kernel, x, y *mat.Dense, est Estimator) float64 {
	n, _ := x.Dims()
	K, _ := kernels.Gram(kx, x)
	L, _ := kernels.Gram(ky, y)
	fn := float64(n)
	if est == Biased {
		H := mat.NewDense(n, n, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				H.Set(i, j, -1/fn)
			}
			H.Set(i, i, 1-1/fn)
		}
		var a mat.Dense
		a.Mul(K, H)
		a.Mul(&a, L)
		a.Mul(&a, H)
		return mat.Trace(&a) / (fn * fn)
	}
	Kt, Lt := mat.DenseCopyOf(K), mat.DenseCopyOf(L)
	for i := 0; i < n; i++ {
		Kt.Set(i, i, 0)
		Lt.Set(i, i, 0)
	}
	var kl mat.Dense
	kl.Mul(Kt, Lt)
	ones := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		ones.SetVec(i, 1)
	}
	return (mat.Trace(&kl) + mat.Sum(Kt)*mat.Sum(Lt)/((fn-1)*(fn-2)) - 2/(fn-2)*mat.Inner(ones, &kl, ones)) / (fn * (fn - 3))
}

func TestApproxResolve(t *testing.T) {
	for _, c := range []struct {
		a    Approx
		n    int
		want Approx
	}{{"", ExactMax, Exact}, {Auto, ExactMax, Exact}, {Auto, ExactMax + 1, Nystrom}, {RFF, 10, RFF}, {Exact, ExactMax + 1, Exact}} {
		if got, err := c.a.resolve(c.n); err != nil || got != c.want {
			t.Errorf("%q at n = %d: %q, %v; want %q", c.a, c.n, got, err, c.want)
		}
	}
	if _, err := Approx("svd").resolve(10); err == nil {
		t.Error("approx \"svd\" accepted")
	}
}

// Each kernel pair of the aggregate HSIC test, on the shared permutations,
// gives the p-value of the single test with that pair and seed.
func TestHSICAggregateMatchesSingleTests(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	n := 40
	x := randomPoints(rng, n, 2)
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, math.Sin(2*x.At(i, 0))+0.5*rng.NormFloat64())
	}
	for _, est := range []Estimator{Biased, Unbiased} {
		s := Settings{Permutations: 199, Seed: 8, Estimator: est, Bandwidths: 3}
		agg, err := HSICAggregateTest(context.Background(), x, y, Permutation, s)
		if err != nil {
			t.Fatal(err)
		}
		for k := range agg.PValues {
			kx := must(kernels.NewRBF([]float64{agg.Bandwidths[k]}))
			ky := must(kernels.NewRBF([]float64{agg.BandwidthsY[k]}))
			one, _ := HSICTest(context.Background(), kx, ky, x, y, Permutation, s)
			if one.PValue != agg.PValues[k] {
				t.Errorf("%s: pair %d: p-value %v in the family, %v alone", est, k, agg.PValues[k], one.PValue)
			}
		}
	}
}

// The exact null on every vector path (the Go path, AVX2, AVX-512 where
// the CPU has them) is the same to the bit, and agrees with the entry-by-
// entry sum over the relabelled Gram matrix (mmdFromGram, which adds in
// another order: 1e-13 of the sum of |K|'s entries scaled as the
// statistic, 2/(m(m−1)) ≈ 4e-4 here, so about 1e-11 in absolute terms);
// the p-values are then the same as the entry-by-entry null's.
func TestExactNullPathsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	const m, n = 70, 61 // N = 131: two words, a partial last tile
	x, y := randomPoints(rng, m, 3), randomPoints(rng, n, 3)
	for i := 0; i < n; i++ {
		y.Set(i, 0, y.At(i, 0)+0.6) // some signal: p-values near 0.05
	}
	k := must(kernels.NewRBF([]float64{1.1}))
	z := mat.NewDense(m+n, 3, nil)
	z.Stack(x, y)
	g, _ := kernels.GramFull(k, z)
	scale := 0.0
	for _, v := range g {
		scale += math.Abs(v)
	}
	scale *= 2 / float64(m*(m-1))
	for _, est := range []Estimator{Unbiased, Biased} {
		s := Settings{Permutations: 300, Seed: 11, Estimator: est}.withDefaults(est)
		var obs0 float64
		var null0 []float64
		for _, l := range cpufeat.Levels() {
			restore := cpufeat.Use(l)
			obs, null, err := labelNull(context.Background(), newExactForms(g, m+n), m, s)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			if null0 == nil {
				obs0, null0 = obs, null
				continue
			}
			if math.Float64bits(obs) != math.Float64bits(obs0) {
				t.Errorf("%s %v: observed %v, Go path %v", est, l, obs, obs0)
			}
			for b := range null {
				if math.Float64bits(null[b]) != math.Float64bits(null0[b]) {
					t.Fatalf("%s %v: permutation %d: %v, Go path %v", est, l, b, null[b], null0[b])
				}
			}
		}
		perm := make([]int, m+n)
		direct := make([]float64, len(null0))
		for b := range direct {
			shuffled(11, b, perm)
			direct[b] = mmdFromGram(g, m+n, perm, m, est)
			if math.Abs(null0[b]-direct[b]) > 1e-13*scale {
				t.Fatalf("%s: permutation %d: %v, entry by entry %v", est, b, null0[b], direct[b])
			}
		}
		obsDirect := mmdFromGram(g, m+n, identity(m+n), m, est)
		if math.Abs(obs0-obsDirect) > 1e-13*scale {
			t.Errorf("%s: observed %v, entry by entry %v", est, obs0, obsDirect)
		}
		if p, q := pValue(obs0, null0), pValue(obsDirect, direct); p != q {
			t.Errorf("%s: p-value %v, entry by entry %v", est, p, q)
		}
		t.Logf("%s: p-value %v", est, pValue(obs0, null0))
	}
}
