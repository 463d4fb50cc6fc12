package kbr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

// gaussianModel is the setting of §5.2: prior X ~ N(0, I₂), likelihood
// Y | X ~ N(AX, σ²I₂), so the posterior mean is AᵀC⁻¹y, C = AAᵀ + σ²I.
type gaussianModel struct {
	a     *mat.Dense
	sigma float64
	gain  *mat.Dense
}

func newGaussianModel(t *testing.T) *gaussianModel {
	g := &gaussianModel{a: mat.NewDense(2, 2, []float64{1, 0.5, -0.3, 1}), sigma: 0.5}
	var c mat.Dense
	c.Mul(g.a, g.a.T())
	for i := 0; i < 2; i++ {
		c.Set(i, i, c.At(i, i)+g.sigma*g.sigma)
	}
	g.gain = &mat.Dense{}
	g.gain.Mul(g.a.T(), inverse(t, &c))
	return g
}

func (g *gaussianModel) sample(r *rand.Rand, n int) (x, y *mat.Dense) {
	x = randMat(r, n, 2, 1)
	y = &mat.Dense{}
	y.Mul(x, g.a.T())
	y.Add(y, randMat(r, n, 2, g.sigma))
	return x, y
}

// mse is the mean squared error of the normalised KBR posterior mean over
// ten observations, against the exact posterior mean.
func (g *gaussianModel) mse(t *testing.T, seed uint64, n int, rank int) float64 {
	r := rand.New(rand.NewPCG(seed, 0x6b6272)) // "kbr"
	x, y := g.sample(r, n)
	u := randMat(r, n, 2, 1) // a separate sample from the prior
	ys := randMat(r, 10, 2, 1.2)
	mx, _ := kernels.MedianHeuristic(x, seed)
	my, _ := kernels.MedianHeuristic(y, seed)
	eps := 0.1 / math.Sqrt(float64(n))
	p, err := New(x, y, rbf(t, mx), rbf(t, my), Prior{U: u}, Settings{Eps: eps, Delta: 2 * eps, Rank: rank})
	if err != nil {
		t.Fatal(err)
	}
	w, err := p.Condition(ys)
	if err != nil {
		t.Fatal(err)
	}
	var exact mat.Dense
	exact.Mul(ys, g.gain.T())
	total := 0.0
	for j := 0; j < 10; j++ {
		m, err := Mean(x, mat.Col(nil, j, w), true)
		if err != nil {
			t.Fatal(err)
		}
		for d := range m {
			total += (m[d] - exact.At(j, d)) * (m[d] - exact.At(j, d))
		}
	}
	return total / 10
}

// The KBR posterior mean converges to the exact one: the mean squared
// error, averaged over six seeded replications, falls as n doubles. (With
// six replications the fall was strict for each of ten disjoint sets of
// seeds tried; with three, for eight of ten.)
func TestGaussianPosteriorMeanConverges(t *testing.T) {
	g := newGaussianModel(t)
	prev := math.Inf(1)
	for _, n := range []int{200, 400, 800} {
		var mse float64
		for rep := uint64(1); rep <= 6; rep++ {
			mse += g.mse(t, rep, n, 0) / 6
		}
		t.Logf("n = %d: MSE %.4f", n, mse)
		if mse >= prev {
			t.Errorf("MSE did not fall from %.4f to n = %d: %.4f", prev, n, mse)
		}
		prev = mse
	}
	if prev > 0.1 {
		t.Errorf("MSE at n = 800 is %.4f, want below 0.1", prev)
	}
}
