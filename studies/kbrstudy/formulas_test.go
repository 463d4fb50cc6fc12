package kbrstudy

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The posterior mean against the other form of Gaussian conditioning:
// under the prior, (X, Y) is jointly Gaussian with Cov(Y, X) = BΣ₀ and
// Var(Y) = BΣ₀Bᵀ + S, so E[X | y] = Σ₀Bᵀ(BΣ₀Bᵀ + S)⁻¹(y − 1), with B and
// S computed here from V by explicit inverses.
func TestPosteriorMean(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 0x706f7374)) // "post"
	const d = 3
	g := newGaussModel(r, d)
	v := mat.DenseCopyOf(g.v)
	vxx := v.Slice(0, d, 0, d)
	vyx := v.Slice(d, 2*d, 0, d)
	vyy := v.Slice(d, 2*d, d, 2*d)
	var inv, b, s, p0 mat.Dense
	if err := inv.Inverse(vxx); err != nil {
		t.Fatal(err)
	}
	b.Mul(vyx, &inv)
	s.Mul(&b, vyx.T())
	s.Sub(vyy, &s)
	p0.Scale(0.5, vxx)
	var bp, vy, vyinv, k mat.Dense
	bp.Mul(&b, &p0)
	vy.Mul(&bp, b.T())
	vy.Add(&vy, &s)
	if err := vyinv.Inverse(&vy); err != nil {
		t.Fatal(err)
	}
	k.Mul(bp.T(), &vyinv)
	// Σ_post = Σ₀ − Σ₀Bᵀ(BΣ₀Bᵀ + S)⁻¹BΣ₀ = Σ₀ − k·BΣ₀.
	var kb mat.Dense
	kb.Mul(&k, &bp)
	tr := 0.0
	for i := 0; i < d; i++ {
		tr += p0.At(i, i) - kb.At(i, i)
	}
	if got := g.posteriorTrace(); math.Abs(got-tr) > 1e-9*tr {
		t.Errorf("posterior trace %g, want %g", got, tr)
	}
	ys := g.observations(r, 4)
	got := g.posteriorMean(ys)
	for i := 0; i < 4; i++ {
		c := make([]float64, d)
		for j := range c {
			c[j] = ys.At(i, j) - 1
		}
		var want mat.VecDense
		want.MulVec(&k, mat.NewVecDense(d, c))
		for j := 0; j < d; j++ {
			if e := math.Abs(want.AtVec(j) - got.At(i, j)); e > 1e-9*(1+math.Abs(want.AtVec(j))) {
				t.Errorf("point %d, coordinate %d: %g, want %g", i, j, got.At(i, j), want.AtVec(j))
			}
		}
	}
}

// KDE + IW against the triple loop in logs, at a bandwidth where the
// kernel values are ordinary and at one where they underflow (the
// fallback path).
func TestKDEIWDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(52, 0x6b6465)) // "kde"
	g := newGaussModel(r, 2)
	x, y := g.joint(r, 30)
	u := g.priorSample(r, 20)
	ys := g.observations(r, 5)
	dux, dyy := sqDist(u, x), sqDist(y, ys)
	for _, h := range []float64{1.5, 0.02} {
		got := kdeIW(dux, dyy, u, h)
		c := -1 / (2 * h * h)
		for k := 0; k < 5; k++ {
			logw := make([]float64, 20)
			for j := 0; j < 20; j++ {
				num := make([]float64, 30)
				den := make([]float64, 30)
				for i := 0; i < 30; i++ {
					num[i] = c*dux.At(j, i) + c*dyy.At(i, k)
					den[i] = c * dux.At(j, i)
				}
				logw[j] = logSumExp(num) - logSumExp(den)
			}
			z := logSumExp(logw)
			for q := 0; q < 2; q++ {
				want := 0.0
				for j := 0; j < 20; j++ {
					want += math.Exp(logw[j]-z) * u.At(j, q)
				}
				if e := math.Abs(got.At(k, q) - want); e > 1e-9*(1+math.Abs(want)) {
					t.Errorf("h %g, point %d: %g, want %g", h, k, got.At(k, q), want)
				}
			}
		}
	}
}

// LSCV's two terms against quadrature of ∫ f̂² over a grid and the
// leave-one-out sum written out, in one and two dimensions.
func TestLSCVQuadrature(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 0x6c736376)) // "lscv"
	for _, dim := range []int{1, 2} {
		const n, h = 12, 0.5
		z := mat.NewDense(n, dim, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < dim; j++ {
				z.Set(i, j, r.NormFloat64())
			}
		}
		phi := func(r2 float64) float64 {
			return math.Pow(2*math.Pi*h*h, -0.5*float64(dim)) * math.Exp(-r2/(2*h*h))
		}
		f := func(p []float64) float64 {
			s := 0.0
			for i := 0; i < n; i++ {
				r2 := 0.0
				for j := 0; j < dim; j++ {
					e := p[j] - z.At(i, j)
					r2 += e * e
				}
				s += phi(r2)
			}
			return s / n
		}
		const lo, hi, steps = -6.0, 6.0, 600
		dx := (hi - lo) / steps
		integral := 0.0
		if dim == 1 {
			for a := 0; a <= steps; a++ {
				v := f([]float64{lo + float64(a)*dx})
				integral += v * v * dx
			}
		} else {
			for a := 0; a <= steps; a++ {
				for b := 0; b <= steps; b++ {
					v := f([]float64{lo + float64(a)*dx, lo + float64(b)*dx})
					integral += v * v * dx * dx
				}
			}
		}
		loo := 0.0
		dzz := sqDist(z, z)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if i != j {
					loo += phi(dzz.At(i, j))
				}
			}
		}
		loo *= 2.0 / (n * (n - 1))
		l1, l2 := lscv(dzz, dim, h)
		if e := math.Abs(math.Exp(l1) - integral); e > 1e-6*integral {
			t.Errorf("dimension %d: ∫f̂² %g, quadrature %g", dim, math.Exp(l1), integral)
		}
		if e := math.Abs(math.Exp(l2) - loo); e > 1e-12*loo {
			t.Errorf("dimension %d: leave-one-out term %g, want %g", dim, math.Exp(l2), loo)
		}
	}
}
