package kernels

import (
	"math"
	"strings"
	"testing"
)

// testSpectralKernels are the kernels with a spectral density, with a
// scale, ARD and a sum among them.
func testSpectralKernels(t *testing.T) []Kernel {
	t.Helper()
	must := func(k Kernel, err error) Kernel {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	rbf := must(NewRBF([]float64{0.7}))
	m12 := must(NewMatern(1, []float64{0.9}))
	m32 := must(NewMatern(3, []float64{0.6}))
	m52 := must(NewMatern(5, []float64{1.3}))
	sc := must(NewScaled(2.5, must(NewMatern(5, []float64{0.4}))))
	sum := must(NewSum(must(NewScaled(1.7, rbf)), must(NewScaled(0.3, m32))))
	return []Kernel{rbf, m12, m32, m52, sc, sum}
}

// TestSpectralDensityInverts checks each closed form against the kernel
// itself: in one dimension k(τ) = (1/π) ∫_0^∞ S(ω) cos(ωτ) dω, computed by
// composite Simpson on a substitution ω = t/(1 − t) that reaches the
// Matérn tails (S ~ ω^(−2ν−1)).
func TestSpectralDensityInverts(t *testing.T) {
	for _, k := range testSpectralKernels(t) {
		for _, tau := range []float64{0, 0.3, 1.1} {
			const n = 20000
			h := 1.0 / n
			sum := 0.0
			for i := 0; i <= n; i++ {
				u := float64(i) * h
				if i == n {
					continue // the integrand vanishes at ω = ∞
				}
				w := u / (1 - u)
				s, err := SpectralDensity(k, []float64{w}, nil)
				if err != nil {
					t.Fatal(err)
				}
				f := s * math.Cos(w*tau) / ((1 - u) * (1 - u))
				c := 2.0
				if i == 0 {
					c = 1
				} else if i%2 == 1 {
					c = 4
				}
				sum += c * f
			}
			got := sum * h / 3 / math.Pi
			want := k.Eval([]float64{0}, []float64{tau})
			tol := 1e-6
			if strings.HasPrefix(k.String(), "laplacian") {
				tol = 5e-4 // S ~ ω⁻² oscillating: Simpson converges slowly
			}
			if math.Abs(got-want) > tol {
				t.Errorf("%s at τ = %v: (1/π)∫S cos = %v, k = %v", k, tau, got, want)
			}
		}
	}
}

// TestSpectralDensity2D checks the two-dimensional forms (isotropic and
// ARD rbf and matern52) against k(τ) = (2π)^(−2) ∫∫ S(ω) cos(ωᵀτ) dω by
// the midpoint rule on a square wide enough for the tails.
func TestSpectralDensity2D(t *testing.T) {
	iso, _ := NewRBF([]float64{0.8})
	ard, _ := NewRBF([]float64{0.5, 1.2})
	m52, _ := NewMatern(5, []float64{0.7, 1.1})
	for _, k := range []Kernel{iso, ard, m52} {
		tau := []float64{0.4, -0.3}
		const n, r = 600, 30.0
		h := 2 * r / n
		sum := 0.0
		for i := range n {
			for j := range n {
				w := []float64{-r + (float64(i)+0.5)*h, -r + (float64(j)+0.5)*h}
				s, err := SpectralDensity(k, w, nil)
				if err != nil {
					t.Fatal(err)
				}
				sum += s * math.Cos(w[0]*tau[0]+w[1]*tau[1])
			}
		}
		got := sum * h * h / (4 * math.Pi * math.Pi)
		want := k.Eval([]float64{0, 0}, tau)
		if math.Abs(got-want) > 1e-3 {
			t.Errorf("%s: (2π)⁻²∫S cos = %v, k = %v", k, got, want)
		}
	}
}

// TestSpectralDensityGrad checks ∂S/∂h against central differences.
func TestSpectralDensityGrad(t *testing.T) {
	ard, _ := NewMatern(3, []float64{0.5, 1.2})
	kinds := append(testSpectralKernels(t), ard)
	for _, k := range kinds {
		w := []float64{1.7}
		if k.Dim() == 2 {
			w = []float64{1.7, 0.6}
		}
		p := k.NumHyper()
		grad := make([]float64, p)
		if _, err := SpectralDensity(k, w, grad); err != nil {
			t.Fatal(err)
		}
		base := k.Hyper(nil)
		for i := range p {
			eps := 1e-6 * base[i]
			at := func(d float64) float64 {
				hh := append([]float64(nil), base...)
				hh[i] += d
				kk, err := k.WithHyper(hh)
				if err != nil {
					t.Fatal(err)
				}
				s, _ := SpectralDensity(kk, w, nil)
				return s
			}
			fd := (at(eps) - at(-eps)) / (2 * eps)
			if math.Abs(grad[i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s: ∂S/∂%s = %v, finite differences %v", k, k.HyperNames()[i], grad[i], fd)
			}
		}
	}
}

func TestSpectralRefuses(t *testing.T) {
	rq, _ := NewRQ([]float64{1}, 2)
	per, _ := NewPeriodic(1, 2)
	rbf, _ := NewRBF([]float64{1})
	prod, _ := NewProduct(rbf, rbf)
	ard, _ := NewRBF([]float64{1, 2})
	lin, _ := NewLinear(0)
	for _, tc := range []struct {
		k    Kernel
		want string
	}{
		{rq, "rational quadratic"},
		{per, "periodic kernel has no spectral density"},
		{prod, "product of kernels"},
		{ard, "2 lengthscales but the inputs have 1 columns"},
		{lin, "only stationary kernels"},
		{White{}, "only stationary kernels"},
	} {
		err := CheckSpectral(tc.k, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.k, err, tc.want)
		}
		if _, err := SpectralDensity(tc.k, []float64{1}, nil); err == nil {
			t.Errorf("%s: SpectralDensity did not refuse", tc.k)
		}
	}
}
