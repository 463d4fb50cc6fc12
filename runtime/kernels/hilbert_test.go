package kernels

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// hilbertError is max_ij |(Φ diag(S) Φᵀ)_ij − k(x_i, x_j)| for the basis
// of m functions per column and the box widened by c.
func hilbertError(t *testing.T, k Kernel, x *mat.Dense, m int, c float64) float64 {
	t.Helper()
	h, err := NewHilbert(x, []int{m}, c, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	phi, err := h.Basis(x)
	if err != nil {
		t.Fatal(err)
	}
	s := make([]float64, h.Size())
	if err := h.SqrtDensity(k, s, nil); err != nil {
		t.Fatal(err)
	}
	n, size := phi.Dims()
	worst := 0.0
	for i := range n {
		for j := range n {
			a := 0.0
			for l := range size {
				a += phi.At(i, l) * s[l] * s[l] * phi.At(j, l)
			}
			worst = max(worst, math.Abs(a-k.Eval(x.RawRowView(i), x.RawRowView(j))))
		}
	}
	return worst
}

// TestHilbertConverges: the approximate covariance Φ diag(S) Φᵀ tends to
// the exact kernel matrix as m grows (Solin and Särkkä 2020, Theorem 8),
// on 41 points spread over [−1, 1] (half-range S = 1) with c = 2.5
// (L = 2.5, so the boundary's effect, below, is negligible). Measured max
// abs errors at m = 10, 20, 40: rbf ℓ = 0.3: 0.060, 1.5e-4, 3.5e-14
// (exponential convergence); matern52 ℓ = 0.3: 0.12, 0.013, 6.5e-4;
// matern32 ℓ = 0.5: 0.052, 0.0084, 0.0014 (the Matérn densities decay
// polynomially). The bounds at m = 40 are those, rounded up.
//
// As m → ∞ the approximation tends to the GP with Dirichlet conditions at
// ±L, not to k: at x = x′ = S the two differ by about k(2(L − S)), the
// covariance with the point's mirror image in the boundary. With c = 1.5
// and rbf ℓ = 0.3 that is exp(−1/0.18) = 0.0039, and the error stops there
// whatever m; this is why c must grow with ℓ/S (Riutort-Mayol et al. 2023,
// §4).
func TestHilbertConverges(t *testing.T) {
	x := mat.NewDense(41, 1, nil)
	for i := range 41 {
		x.Set(i, 0, -1+float64(i)/20)
	}
	rbf, _ := NewRBF([]float64{0.3})
	m52, _ := NewMatern(5, []float64{0.3})
	m32, _ := NewMatern(3, []float64{0.5})
	big, _ := NewScaled(2, rbf)
	for _, tc := range []struct {
		k     Kernel
		c     float64
		bound float64
	}{{rbf, 2.5, 1e-12}, {big, 2.5, 1e-12}, {m52, 2.5, 2e-3}, {m32, 2.5, 5e-3}} {
		e10, e20, e40 := hilbertError(t, tc.k, x, 10, tc.c), hilbertError(t, tc.k, x, 20, tc.c), hilbertError(t, tc.k, x, 40, tc.c)
		t.Logf("%s, c = %v: max abs error m=10 %.3g, m=20 %.3g, m=40 %.3g", tc.k, tc.c, e10, e20, e40)
		if !(e20 < e10 && e40 < e20) {
			t.Errorf("%s: error does not decrease: %g, %g, %g", tc.k, e10, e20, e40)
		}
		if e40 > tc.bound {
			t.Errorf("%s: error %g at m = 40, above %g", tc.k, e40, tc.bound)
		}
	}
	mirror := rbf.Eval([]float64{0}, []float64{2 * (1.5 - 1)})
	for _, m := range []int{40, 80} {
		if e := hilbertError(t, rbf, x, m, 1.5); math.Abs(e-mirror) > 0.05*mirror {
			t.Errorf("c = 1.5, m = %d: error %g, want the boundary's %g", m, e, mirror)
		}
	}
}

// TestHilbert2D: the product basis in two dimensions (ARD rbf ℓ = (0.5,
// 0.8), c = 3, m = 5, 10, 20 per column: 25, 100, 400 basis functions) on
// a 7×7 grid over [−1, 1]². Measured: 0.20, 0.0081, 3.9e-6.
func TestHilbert2D(t *testing.T) {
	x := mat.NewDense(49, 2, nil)
	for i := range 7 {
		for j := range 7 {
			x.Set(i*7+j, 0, -1+float64(i)/3)
			x.Set(i*7+j, 1, -1+float64(j)/3)
		}
	}
	k, _ := NewRBF([]float64{0.5, 0.8})
	var errs []float64
	for _, m := range []int{5, 10, 20} {
		e := hilbertError(t, k, x, m, 3)
		errs = append(errs, e)
	}
	t.Logf("2-D ARD rbf: max abs error m=5 %.3g, m=10 %.3g, m=20 %.3g per dimension", errs[0], errs[1], errs[2])
	if !(errs[1] < errs[0] && errs[2] < errs[1]) || errs[2] > 2e-5 {
		t.Errorf("2-D errors %v", errs)
	}
}

// TestHilbertBasis checks the basis against its formula at a point, its
// box, the order of the product basis, and the refusals.
func TestHilbertBasis(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{0, 10, 2, 14, 4, 12})
	h, err := NewHilbert(x, []int{3, 2}, 1.5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.Center[0] != 2 || h.Center[1] != 12 || h.L[0] != 3 || h.L[1] != 3 || h.Size() != 6 {
		t.Fatalf("box %v ± %v, size %d", h.Center, h.L, h.Size())
	}
	phi, err := h.Basis(x)
	if err != nil {
		t.Fatal(err)
	}
	one := func(j int, v, c, l float64) float64 {
		return math.Sin(float64(j)*math.Pi*(v-c+l)/(2*l)) / math.Sqrt(l)
	}
	for i := range 3 {
		for j1 := 1; j1 <= 3; j1++ {
			for j2 := 1; j2 <= 2; j2++ {
				col := (j1-1)*2 + (j2 - 1)
				want := one(j1, x.At(i, 0), 2, 3) * one(j2, x.At(i, 1), 12, 3)
				if got := phi.At(i, col); math.Abs(got-want) > 1e-14 {
					t.Errorf("φ_(%d,%d)(x_%d) = %v, want %v", j1, j2, i+1, got, want)
				}
				w := h.Freq(col)
				if math.Abs(w[0]-float64(j1)*math.Pi/6) > 1e-15 || math.Abs(w[1]-float64(j2)*math.Pi/6) > 1e-15 {
					t.Errorf("frequency of %d: %v", col, w)
				}
			}
		}
	}
	out := mat.NewDense(1, 2, []float64{5.5, 12})
	if _, err := h.Basis(out); err == nil {
		t.Error("a point outside the box was accepted")
	}
	if _, err := NewHilbert(x, []int{3}, 0.9, nil, nil); err == nil {
		t.Error("c < 1 was accepted")
	}
	if _, err := NewHilbert(mat.NewDense(2, 1, []float64{1, 1}), []int{3}, 1.5, nil, nil); err == nil {
		t.Error("x without spread was accepted")
	}
	if _, err := NewHilbert(x, []int{3, 2, 1}, 1.5, nil, nil); err == nil {
		t.Error("three m for two columns were accepted")
	}
	g, err := NewHilbert(x, []int{3}, 1.5, []float64{10}, []float64{0})
	if err != nil || g.L[1] != 10 || g.Center[1] != 0 || g.M[1] != 3 {
		t.Errorf("given L and center: %v %+v", err, g)
	}
}

// TestHilbertSqrtDensityGrad checks ∂√S(ω_j)/∂h against central
// differences for a scaled ARD kernel plus another.
func TestHilbertSqrtDensityGrad(t *testing.T) {
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 2, -1, 1, 0.5, -2})
	a, _ := NewRBF([]float64{0.6, 1.4})
	b, _ := NewMatern(3, []float64{0.9})
	sa, _ := NewScaled(1.3, a)
	sb, _ := NewScaled(0.4, b)
	k, _ := NewSum(sa, sb)
	h, err := NewHilbert(x, []int{4, 3}, 1.5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	size, p := h.Size(), k.NumHyper()
	s := make([]float64, size)
	jac := make([]float64, size*p)
	if err := h.SqrtDensity(k, s, jac); err != nil {
		t.Fatal(err)
	}
	base := k.Hyper(nil)
	for i := range p {
		eps := 1e-6 * base[i]
		at := func(d float64) []float64 {
			hh := append([]float64(nil), base...)
			hh[i] += d
			kk, _ := k.WithHyper(hh)
			out := make([]float64, size)
			if err := h.SqrtDensity(kk, out, nil); err != nil {
				t.Fatal(err)
			}
			return out
		}
		up, dn := at(eps), at(-eps)
		for j := range size {
			fd := (up[j] - dn[j]) / (2 * eps)
			if math.Abs(jac[j*p+i]-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂√S_%d/∂%s = %v, finite differences %v", j, k.HyperNames()[i], jac[j*p+i], fd)
			}
		}
	}
}
