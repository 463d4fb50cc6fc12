package inference

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/testmodel"
	"github.com/kml-lang/kml/runtime/linalg"
	"github.com/kml-lang/kml/runtime/rng"
)

// minorMode has its main mode at 10 and a minor mode at −1 whose peak lies
// 200 nats below: log p = log(e^{−200 − 8(x+1)²} + e^{−2(x−10)²}). Uniform
// starting points in (−2, −0.1) lie in the minor mode's basin.
func minorMode() Model {
	return testmodel.Mixture1{
		W:  []float64{math.Exp(-200) * math.Sqrt(math.Pi/8), math.Sqrt(math.Pi / 2)},
		Mu: []float64{-1, 10}, Sd: []float64{0.25, 0.5},
	}
}

func TestPathfinderSkipsANegligibleMinorMode(t *testing.T) {
	m := minorMode()
	models := make([]Model, 8)
	for i := range models {
		models[i] = m
	}
	inits, _, err := Pathfinder(context.Background(), models, 8, 42, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c, q := range inits {
		if math.Abs(q[0]-10) > 3 {
			t.Errorf("chain %d starts at %v, outside the main mode at 10", c, q[0])
		}
	}
	// Uniform starting points do land in the minor mode's basin for this
	// seed, which is what makes the test meaningful.
	// (hmc's uniform initialisation: chain c's stream 0x696e6974+c).
	inMinor := 0
	for c := range models {
		q, _, err := UniformInit(m, nil, rng.New(42, rng.UniformInit.Index(c)), 2)
		if err != nil {
			t.Fatal(err)
		}
		if q[0] < -0.1 {
			inMinor++
		}
	}
	if inMinor == 0 {
		t.Errorf("no uniform starting point in the minor basin; pick a seed that shows the difference")
	}
	t.Logf("uniform: %d of 8 chains start in the minor mode's basin; pathfinder: none", inMinor)
}

// TestPathfinderFindsAMainModeAtTheEdge: the main mode sits at 2.6, just
// outside Stan's starting range (−2, 2), with a narrow basin (from about
// 1.15 up); a minor mode at −0.3, about 400 nats lower, holds the rest of
// the range. Paths started only in (−2, 2) all miss the main mode for
// about two seeds in five (as the BKE lengthscale did on a grid of
// clusters); with the wide stratified paths every seed finds it and every
// chain starts there.
func TestPathfinderFindsAMainModeAtTheEdge(t *testing.T) {
	m := testmodel.Mixture1{W: []float64{math.Exp(-400), 1}, Mu: []float64{-0.3, 2.6}, Sd: []float64{0.5, 0.05}}
	models := make([]Model, 4)
	for i := range models {
		models[i] = m
	}
	for seed := uint64(1); seed <= 20; seed++ {
		inits, _, err := Pathfinder(context.Background(), models, 4, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		for c, q := range inits {
			if math.Abs(q[0]-2.6) > 0.5 {
				t.Errorf("seed %d: chain %d starts at %.3f, not in the main mode at 2.6", seed, c, q[0])
			}
		}
	}
}

func TestPathfinderOnAGaussianStartsNearTheMass(t *testing.T) {
	// On a 20-D normal centred at 3 with sd 0.5, every start is within the
	// typical set (|x − 3| < 5 sd in every coordinate).
	m := shifted{testmodel.StdNormal{D: 20}, 3, 0.5}
	models := []Model{m, m, m, m}
	inits, _, err := Pathfinder(context.Background(), models, 4, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for c, q := range inits {
		for k, v := range q {
			if math.Abs(v-3) > 2.5 {
				t.Errorf("chain %d coordinate %d starts at %v", c, k, v)
			}
		}
	}
}

// shifted is a model evaluated at (q − loc)/scale.
type shifted struct {
	Model
	loc, scale float64
}

func (s shifted) LogDensity(grad, q []float64) (float64, error) {
	z := make([]float64, len(q))
	for i, v := range q {
		z[i] = (v - s.loc) / s.scale
	}
	lp, err := s.Model.LogDensity(grad, z)
	for i := range grad {
		grad[i] /= s.scale
	}
	return lp, err
}

// denseBFGS is the reference for approximation: the inverse Hessian built
// by applying the BFGS update Σ ← (I − ρsyᵀ)Σ(I − ρysᵀ) + ρssᵀ to γI pair
// by pair, as a dense D×D matrix.
func denseBFGS(it iterate, dim int) []float64 {
	k := len(it.s)
	gamma := linalg.Dot(it.s[k-1], it.y[k-1]) / linalg.Dot(it.y[k-1], it.y[k-1])
	sigma := make([]float64, dim*dim)
	for i := 0; i < dim; i++ {
		sigma[i*dim+i] = gamma
	}
	for p := range it.s {
		s, y := it.s[p], it.y[p]
		rho := 1 / linalg.Dot(y, s)
		left := make([]float64, dim*dim) // (I − ρsyᵀ)Σ
		for i := 0; i < dim; i++ {
			for j := 0; j < dim; j++ {
				v := sigma[i*dim+j]
				for l := 0; l < dim; l++ {
					v -= rho * s[i] * y[l] * sigma[l*dim+j]
				}
				left[i*dim+j] = v
			}
		}
		for i := 0; i < dim; i++ {
			for j := 0; j < dim; j++ {
				v := left[i*dim+j]
				for l := 0; l < dim; l++ {
					v -= rho * left[i*dim+l] * y[l] * s[j]
				}
				sigma[i*dim+j] = v + rho*s[i]*s[j]
			}
		}
	}
	return sigma
}

// TestCompactApproximationMatchesDense checks Pathfinder's low-rank Gaussian
// against the dense BFGS matrix: the same mean x + Σg, the same log det Σ,
// and for its draws a log q equal to the dense normal log density.
func TestCompactApproximationMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	for _, c := range []struct{ dim, pairs int }{{1, 1}, {3, 1}, {7, 4}, {12, 6}, {4, 6}} {
		// Pairs from a random positive definite Hessian, so sᵀy > 0.
		a := make([]float64, c.dim*c.dim)
		for i := 0; i < c.dim; i++ {
			for j := 0; j < c.dim; j++ {
				a[i*c.dim+j] = rng.NormFloat64()
			}
		}
		h := make([]float64, c.dim*c.dim)
		for i := 0; i < c.dim; i++ {
			for j := 0; j < c.dim; j++ {
				h[i*c.dim+j] = linalg.Dot(a[i*c.dim:(i+1)*c.dim], a[j*c.dim:(j+1)*c.dim])
			}
			h[i*c.dim+i] += 0.5
		}
		it := iterate{x: make([]float64, c.dim), g: make([]float64, c.dim)}
		for i := range it.x {
			it.x[i], it.g[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		for p := 0; p < c.pairs; p++ {
			s := make([]float64, c.dim)
			for i := range s {
				s[i] = rng.NormFloat64()
			}
			y := make([]float64, c.dim)
			for i := range y {
				y[i] = linalg.Dot(h[i*c.dim:(i+1)*c.dim], s)
			}
			it.s, it.y = append(it.s, s), append(it.y, y)
		}
		g := approximation(it, c.dim)
		if g == nil {
			t.Fatalf("D=%d J=%d: no approximation", c.dim, c.pairs)
		}
		sigma := denseBFGS(it, c.dim)
		l := make([]float64, c.dim*c.dim)
		if !linalg.Cholesky(l, sigma, c.dim) {
			t.Fatalf("D=%d J=%d: dense Σ not positive definite", c.dim, c.pairs)
		}
		halfLogDet := 0.0
		for i := 0; i < c.dim; i++ {
			halfLogDet += math.Log(l[i*c.dim+i])
			want := it.x[i] + linalg.Dot(sigma[i*c.dim:(i+1)*c.dim], it.g)
			if math.Abs(g.mu[i]-want) > 1e-8*(1+math.Abs(want)) {
				t.Errorf("D=%d J=%d: μ[%d] = %v, dense %v", c.dim, c.pairs, i, g.mu[i], want)
			}
		}
		if math.Abs(g.logDet-halfLogDet) > 1e-8*(1+math.Abs(halfLogDet)) {
			t.Errorf("D=%d J=%d: ½ log det Σ = %v, dense %v", c.dim, c.pairs, g.logDet, halfLogDet)
		}
		for d := 0; d < 5; d++ {
			theta, logQ := g.draw(rng)
			// Dense log N(θ; μ, Σ) by solving L u = θ − μ.
			u := make([]float64, c.dim)
			for i := 0; i < c.dim; i++ {
				v := theta[i] - g.mu[i]
				for k := 0; k < i; k++ {
					v -= l[i*c.dim+k] * u[k]
				}
				u[i] = v / l[i*c.dim+i]
			}
			want := -0.5*linalg.Dot(u, u) - halfLogDet - 0.5*float64(c.dim)*math.Log(2*math.Pi)
			if math.Abs(logQ-want) > 1e-7*(1+math.Abs(want)) {
				t.Errorf("D=%d J=%d: log q = %v, dense log density %v", c.dim, c.pairs, logQ, want)
			}
		}
	}
}
