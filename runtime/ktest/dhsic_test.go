package ktest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
)

func rbfKernel(t *testing.T, ell float64) kernels.Kernel {
	t.Helper()
	k, err := kernels.NewRBF([]float64{ell})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func randMat(r *rand.Rand, n, d int) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, r.NormFloat64())
		}
	}
	return m
}

// TestDHSICAgainstDefinition: dHSIC is ‖μ_joint − μ_1 ⊗ … ⊗ μ_d‖², the
// cross term written as the sum over every a and every tuple
// (b_1, …, b_d) of Π_j k_j(x_j^a, x_j^{b_j}) (O(n^{d+1}), from kernel
// evaluations); and for d = 2 it is the biased HSIC.
func TestDHSICAgainstDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 10))
	n, d := 7, 3
	xs := []*mat.Dense{randMat(r, n, 1), randMat(r, n, 2), randMat(r, n, 1)}
	ks := []kernels.Kernel{rbfKernel(t, 0.8), rbfKernel(t, 1.3), rbfKernel(t, 2)}
	kv := func(j, a, b int) float64 { return ks[j].Eval(xs[j].RawRowView(a), xs[j].RawRowView(b)) }
	var joint, marg, cross float64
	for a := 0; a < n; a++ {
		for b := 0; b < n; b++ {
			p := 1.0
			for j := 0; j < d; j++ {
				p *= kv(j, a, b)
			}
			joint += p
		}
	}
	marg = 1
	for j := 0; j < d; j++ {
		s := 0.0
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				s += kv(j, a, b)
			}
		}
		marg *= s / float64(n*n)
	}
	for a := 0; a < n; a++ {
		for b0 := 0; b0 < n; b0++ {
			for b1 := 0; b1 < n; b1++ {
				for b2 := 0; b2 < n; b2++ {
					cross += kv(0, a, b0) * kv(1, a, b1) * kv(2, a, b2)
				}
			}
		}
	}
	want := joint/float64(n*n) + marg - 2*cross/math.Pow(float64(n), float64(d+1))
	res, err := DHSICTest(context.Background(), ks, xs, Permutation, Settings{Permutations: 10})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Statistic-want) > 1e-12*math.Abs(want) {
		t.Errorf("dHSIC %.15g, definition %.15g", res.Statistic, want)
	}
	// d = 2: the biased HSIC, and the same permutation p-value as HSICTest.
	y := randMat(r, 40, 1)
	x := randMat(r, 40, 2)
	for i := 0; i < 40; i++ {
		y.Set(i, 0, y.At(i, 0)+x.At(i, 0))
	}
	s := Settings{Permutations: 99, Seed: 3}
	two, err := DHSICTest(context.Background(), ks[:2], []*mat.Dense{x, y}, Permutation, s)
	if err != nil {
		t.Fatal(err)
	}
	h, err := HSICTest(context.Background(), ks[0], ks[1], x, y, Permutation, s)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(two.Statistic-h.Statistic) > 1e-12*h.Statistic || two.PValue != h.PValue {
		t.Errorf("d = 2: dHSIC %.15g p %g, HSIC %.15g p %g", two.Statistic, two.PValue, h.Statistic, h.PValue)
	}
}

// TestDHSICGammaMoments: the gamma approximation's mean and variance of
// n·dHSIC agree with the moments of the permutation null, which is an
// independent estimate of the same null.
func TestDHSICGammaMoments(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 11))
	n := 60
	xs := []*mat.Dense{randMat(r, n, 1), randMat(r, n, 1), randMat(r, n, 2)}
	ks := []kernels.Kernel{rbfKernel(t, 1), rbfKernel(t, 1), rbfKernel(t, 1.5)}
	grams := make([][]float64, 3)
	for j := range xs {
		grams[j] = make([]float64, n*n)
		if err := kernels.GramFullInto(grams[j], ks[j], xs[j]); err != nil {
			t.Fatal(err)
		}
	}
	st := newDHSICState(grams, n)
	_, mean, variance := st.gamma(st.stat(make([][]int, 3)))
	const B = 3000
	perms := [][]int{nil, make([]int, n), make([]int, n)}
	var m1, m2 float64
	for b := 0; b < B; b++ {
		jointPermutations(7, b, perms[1:])
		v := float64(n) * st.stat(perms)
		m1 += v
		m2 += v * v
	}
	m1 /= B
	pv := m2/B - m1*m1
	t.Logf("n·dHSIC null: gamma mean %.5g variance %.5g; permutations mean %.5g variance %.5g", mean, variance, m1, pv)
	if math.Abs(mean-m1) > 0.05*m1 {
		t.Errorf("gamma mean %.5g, permutation mean %.5g", mean, m1)
	}
	if math.Abs(variance-pv) > 0.2*pv {
		t.Errorf("gamma variance %.5g, permutation variance %.5g", variance, pv)
	}
}

// dhsicRejections counts rejections at 0.05 over reps seeded data sets.
func dhsicRejections(t *testing.T, reps, n int, method Method, seed uint64, gen func(r *rand.Rand, n int) []*mat.Dense) int {
	t.Helper()
	rej := 0
	for rep := 0; rep < reps; rep++ {
		r := rand.New(rand.NewPCG(seed, uint64(rep)))
		xs := gen(r, n)
		ks := make([]kernels.Kernel, len(xs))
		for j, x := range xs {
			m, err := kernels.MedianHeuristic(x, 1)
			if err != nil {
				t.Fatal(err)
			}
			if m == 0 { // half the pairs of signs coincide
				m = 1
			}
			ks[j] = rbfKernel(t, m)
		}
		res, err := DHSICTest(context.Background(), ks, xs, method, Settings{Permutations: 199, Seed: uint64(rep)})
		if err != nil {
			t.Fatal(err)
		}
		if res.PValue <= 0.05 {
			rej++
		}
	}
	return rej
}

// TestDHSICLevel: under joint independence (three variables, one of them
// Student-t(3)) the rejection rate at 0.05 lies within 3 binomial SE of
// α for both nulls: 60 replications of 50 rows in the suite,
// KML_FULL=1 (CI, fulltest) 400.
func TestDHSICLevel(t *testing.T) {
	reps := 60
	if fulltest.Enabled() {
		reps = 400
	}
	se := math.Sqrt(0.05 * 0.95 / float64(reps))
	indep := func(r *rand.Rand, n int) []*mat.Dense {
		z := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			z.Set(i, 0, drawStudent(3)(r))
		}
		return []*mat.Dense{randMat(r, n, 1), randMat(r, n, 2), z}
	}
	for i, m := range []Method{Permutation, Gamma} {
		rej := dhsicRejections(t, reps, 50, m, 500+uint64(i), indep)
		rate := float64(rej) / float64(reps)
		t.Logf("%s: rejection rate %.3f over %d replications (SE %.4f)", m, rate, reps, se)
		if math.Abs(rate-0.05) > 3*se {
			t.Errorf("%s: rejection rate %.3f is more than 3 SE from 0.05", m, rate)
		}
	}
}

// TestDHSICPower: x, y independent signs and z = xy + noise are pairwise
// independent but not jointly; dHSIC rejects (Pfister et al.'s example).
func TestDHSICPower(t *testing.T) {
	gen := func(r *rand.Rand, n int) []*mat.Dense {
		x, y, z := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			a, b := float64(2*r.IntN(2)-1), float64(2*r.IntN(2)-1)
			x.Set(i, 0, a)
			y.Set(i, 0, b)
			z.Set(i, 0, a*b+0.5*r.NormFloat64())
		}
		return []*mat.Dense{x, y, z}
	}
	for i, m := range []Method{Permutation, Gamma} {
		if rej := dhsicRejections(t, 10, 100, m, 600+uint64(i), gen); rej < 9 {
			t.Errorf("%s: %d/10 rejections", m, rej)
		}
	}
}
