package bke

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

var priors = []Prior{Normalised, Lebesgue, Gaussian}

// nuDensity is the density of ν with respect to Lebesgue measure.
func nuDensity(m Prior, eta float64, u []float64) float64 {
	if m != Gaussian {
		return 1
	}
	var s float64
	for _, v := range u {
		s += v * v
	}
	return math.Exp(-s / (2 * eta * eta))
}

// normalisingConstant is the factor the normalised measure drops.
func normalisingConstant(m Prior, ell []float64, dim int) float64 {
	if m != Normalised {
		return 1
	}
	c := 1.0
	for d := 0; d < dim; d++ {
		l := ell[0]
		if len(ell) > 1 {
			l = ell[d]
		}
		c *= math.Sqrt(math.Pi) * l
	}
	return c
}

func TestPriorKernelQuadrature1D(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, m := range priors {
		for trial := 0; trial < 5; trial++ {
			amp := 0.5 + 2*rng.Float64()
			ell := []float64{0.2 + 2*rng.Float64()}
			eta := 0.5 + 3*rng.Float64()
			x := []float64{4*rng.Float64() - 2}
			y := []float64{4*rng.Float64() - 2}
			p, err := NewPriorKernel(amp, ell, m, eta)
			if err != nil {
				t.Fatal(err)
			}
			lo := math.Min(x[0], y[0]) - 14*ell[0]
			hi := math.Max(x[0], y[0]) + 14*ell[0]
			u := make([]float64, 1)
			f := func(v float64) float64 {
				u[0] = v
				return seK(amp, ell, x, u) * seK(amp, ell, u, y) * nuDensity(m, eta, u)
			}
			want := quad.Fixed(f, lo, hi, 400, quad.Legendre{}, 0) / normalisingConstant(m, ell, 1)
			got := p.Eval(x, y)
			if math.Abs(got-want) > 1e-11*math.Abs(want) {
				t.Errorf("%v amp=%g ell=%g eta=%g x=%g y=%g: r = %.15g, quadrature %.15g", m, amp, ell[0], eta, x[0], y[0], got, want)
			}
		}
	}
}

func TestPriorKernelQuadrature2D(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes = 160
	for _, m := range priors {
		for _, ell := range [][]float64{{0.8}, {0.6, 1.3}} {
			amp := 1.7
			eta := 1.5
			x := []float64{rng.Float64() - 0.5, 2 * rng.Float64()}
			y := []float64{rng.Float64(), -rng.Float64()}
			p, err := NewPriorKernel(amp, ell, m, eta)
			if err != nil {
				t.Fatal(err)
			}
			var loc, w [2][]float64
			for d := 0; d < 2; d++ {
				l := ell[0]
				if len(ell) > 1 {
					l = ell[d]
				}
				loc[d] = make([]float64, nodes)
				w[d] = make([]float64, nodes)
				lo := math.Min(x[d], y[d]) - 14*l
				hi := math.Max(x[d], y[d]) + 14*l
				quad.Legendre{}.FixedLocations(loc[d], w[d], lo, hi)
			}
			var want float64
			u := make([]float64, 2)
			for i := range loc[0] {
				for j := range loc[1] {
					u[0], u[1] = loc[0][i], loc[1][j]
					want += w[0][i] * w[1][j] * seK(amp, ell, x, u) * seK(amp, ell, u, y) * nuDensity(m, eta, u)
				}
			}
			want /= normalisingConstant(m, ell, 2)
			got := p.Eval(x, y)
			if math.Abs(got-want) > 1e-10*math.Abs(want) {
				t.Errorf("%v ell=%v: r = %.15g, tensor quadrature %.15g", m, ell, got, want)
			}
		}
	}
}

// TestPriorKernelLebesgueLimit checks that the Gaussian measure tends to the
// Lebesgue one as η grows (appendix A.3).
func TestPriorKernelLebesgueLimit(t *testing.T) {
	x, y := []float64{0.3, -0.2}, []float64{-0.4, 0.5}
	leb, _ := NewPriorKernel(1.3, []float64{0.5, 0.9}, Lebesgue, 0)
	gau, _ := NewPriorKernel(1.3, []float64{0.5, 0.9}, Gaussian, 1e4)
	a, b := leb.Eval(x, y), gau.Eval(x, y)
	if math.Abs(a-b) > 1e-7*a {
		t.Errorf("η = 1e4: gaussian %g, lebesgue %g", b, a)
	}
}

func bkeTestPoints(rng *rand.Rand, dim int) (x, y []float64) {
	x = make([]float64, dim)
	y = make([]float64, dim)
	for d := range x {
		x[d] = 2*rng.Float64() - 1
		y[d] = 2*rng.Float64() - 1
	}
	return x, y
}

func TestPriorKernelGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, m := range priors {
		for dim := 1; dim <= 3; dim++ {
			for _, ard := range []bool{false, true} {
				ell := []float64{0.4 + rng.Float64()}
				if ard {
					ell = make([]float64, dim)
					for d := range ell {
						ell[d] = 0.4 + rng.Float64()
					}
				}
				p, err := NewPriorKernel(0.5+rng.Float64(), ell, m, 1.2)
				if err != nil {
					t.Fatal(err)
				}
				x, y := bkeTestPoints(rng, dim)

				h := p.Hyper(nil)
				got := make([]float64, len(h))
				r := p.GradHyper(got, x, y)
				if r != p.Eval(x, y) {
					t.Errorf("GradHyper returned %g, Eval %g", r, p.Eval(x, y))
				}
				want := fd.Gradient(nil, func(h []float64) float64 {
					q, err := p.WithHyper(h)
					if err != nil {
						t.Fatal(err)
					}
					return q.Eval(x, y)
				}, h, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for i := range got {
					if math.Abs(got[i]-want[i]) > 1e-7*(1+math.Abs(want[i])) {
						t.Errorf("%v D=%d ARD=%v: ∂r/∂%s = %g, finite difference %g", m, dim, ard, p.HyperNames()[i], got[i], want[i])
					}
				}

				gx := make([]float64, dim)
				p.GradX(gx, x, y)
				wx := fd.Gradient(nil, func(x []float64) float64 { return p.Eval(x, y) }, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
				for d := range gx {
					if math.Abs(gx[d]-wx[d]) > 1e-7*(1+math.Abs(wx[d])) {
						t.Errorf("%v D=%d ARD=%v: ∂r/∂x_%d = %g, finite difference %g", m, dim, ard, d+1, gx[d], wx[d])
					}
				}
			}
		}
	}
}

func TestPriorKernelGramPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range priors {
		for dim := 1; dim <= 3; dim++ {
			const n = 25
			pts := make([][]float64, n)
			for i := range pts {
				pts[i] = make([]float64, dim)
				for d := range pts[i] {
					pts[i][d] = 3 * rng.Float64()
				}
			}
			ell := make([]float64, dim)
			for d := range ell {
				ell[d] = 0.1 + 0.1*float64(d)
			}
			p, err := NewPriorKernel(2, ell, m, 2)
			if err != nil {
				t.Fatal(err)
			}
			g := mat.NewSymDense(n, nil)
			for i := 0; i < n; i++ {
				for j := i; j < n; j++ {
					g.SetSym(i, j, p.Eval(pts[i], pts[j]))
					if a, b := p.Eval(pts[i], pts[j]), p.Eval(pts[j], pts[i]); a != b {
						t.Errorf("%v: r(x, y) = %g, r(y, x) = %g", m, a, b)
					}
				}
			}
			var eig mat.EigenSym
			if !eig.Factorize(g, false) {
				t.Fatal("eigendecomposition failed")
			}
			vals := eig.Values(nil)
			if vals[0] <= 0 {
				t.Errorf("%v D=%d: Gram matrix has smallest eigenvalue %g", m, dim, vals[0])
			}
		}
	}
}

func TestPriorKernelHyper(t *testing.T) {
	p, err := NewPriorKernel(2, []float64{1, 0.5}, Gaussian, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.HyperNames(), ","); got != "amp,ell.1,ell.2" {
		t.Errorf("HyperNames = %s", got)
	}
	if got := p.String(); got != `bkeprior(2 * rbf([1, 0.5]), prior: "gaussian", eta: 3)` {
		t.Errorf("String = %s", got)
	}
	if p.Dim() != 2 || p.NumHyper() != 3 {
		t.Errorf("Dim = %d, NumHyper = %d", p.Dim(), p.NumHyper())
	}
	q, err := NewPriorKernel(1, []float64{0.25}, Normalised, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := q.String(); got != "bkeprior(rbf(0.25))" {
		t.Errorf("String = %s", got)
	}
	if got := strings.Join(q.HyperNames(), ","); got != "amp,ell" || q.Dim() != 0 {
		t.Errorf("HyperNames = %s, Dim = %d", got, q.Dim())
	}
	for _, c := range []struct {
		h    []float64
		name string
	}{
		{[]float64{0, 1, 1}, "amp"},
		{[]float64{1, 1, -2}, "ell.2"},
		{[]float64{1, math.NaN(), 1}, "ell.1"},
	} {
		_, err := p.WithHyper(c.h)
		if err == nil || !strings.Contains(err.Error(), c.name) {
			t.Errorf("WithHyper(%v): error %v does not name %s", c.h, err, c.name)
		}
	}
	if _, err := NewPriorKernel(1, []float64{1}, Gaussian, 0); err == nil || !strings.Contains(err.Error(), "eta") {
		t.Errorf("eta = 0: error %v", err)
	}
	r, err := p.WithHyper([]float64{3, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Hyper(nil); got[0] != 3 || got[1] != 2 || got[2] != 1 {
		t.Errorf("WithHyper: Hyper = %v", got)
	}
	if p.Hyper(nil)[0] != 2 {
		t.Error("WithHyper changed the receiver")
	}
}
