package kernels

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// hsFeaturesError is max_ij |(F Fᵀ)_ij − k(x_i, x_j)| for k's features
// with J harmonics (and a box of m functions, c = 2.5, when k has a
// stationary part), and the feature count.
func hsFeaturesError(t *testing.T, k Kernel, x *mat.Dense, J, m int) (float64, int) {
	t.Helper()
	h, err := NewHilbert(x, []int{m}, 2.5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewHSFeatures(k, h, x, J)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := x.Dims()
	cols := f.Cols()
	val := make([]float64, n*cols)
	if err := f.Eval(k, nil, val, nil); err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for i := range n {
		for j := range n {
			a := 0.0
			for c := range cols {
				a += val[i*cols+c] * val[j*cols+c]
			}
			worst = max(worst, math.Abs(a-k.Eval(x.RawRowView(i), x.RawRowView(j))))
		}
	}
	return worst, cols
}

// TestHSFeaturesPeriodicConverges: the cosine series of the periodic
// kernel tends to the exact kernel as the harmonics J grow, on 41 points
// over [−1, 2] (more than three periods of 0.9): its largest error is the
// variance the truncation leaves out, 1 − Σ_(j≤J) q_j², at τ = 0 — the
// check that q_j² = (2 − δ_j0)e^(−a)I_j(a), a = ℓ⁻², are the right
// constants (a wrong factor would leave an error at every J). Measured
// max abs errors at J = 3, 6, 12, 24: ℓ = 1: 2.2e-3, 1.3e-6, 1.5e-14,
// 2.1e-15 (rounding); ℓ = 0.5: 0.078, 2.0e-3, 7.4e-8, 4.3e-15; ℓ = 0.25:
// 0.38, 0.10, 2.1e-3, 8.1e-9 (q_j² ≈ √(2/π)·ℓ·exp(−j²ℓ²/2) for small ℓ,
// so J ≈ 6/ℓ is needed). A sum with a scaled rbf (Hilbert basis, m = 40,
// c = 2.5) and J = 20: 1.0e-11.
func TestHSFeaturesPeriodicConverges(t *testing.T) {
	x := mat.NewDense(41, 1, nil)
	for i := range 41 {
		x.Set(i, 0, -1+3*float64(i)/40)
	}
	for _, ell := range []float64{1, 0.5, 0.25} {
		k, _ := NewPeriodic(ell, 0.9)
		var errs []float64
		for _, J := range []int{3, 6, 12, 24} {
			e, cols := hsFeaturesError(t, k, x, J, 10)
			if cols != 2*J+1 {
				t.Fatalf("%d columns for J = %d", cols, J)
			}
			ive := make([]float64, J+1)
			besselIve(1/(ell*ell), ive)
			tail := 1 - ive[0]
			for _, v := range ive[1:] {
				tail -= 2 * v
			}
			if math.Abs(e-tail) > 1e-12 {
				t.Errorf("%s, J = %d: max error %g, truncated variance %g", k, J, e, tail)
			}
			errs = append(errs, e)
		}
		t.Logf("%s: max abs error at J = 3, 6, 12, 24: %.2g", k, errs)
		for i := 1; i < len(errs); i++ {
			if !(errs[i] < errs[i-1] || errs[i] < 1e-13) {
				t.Errorf("%s: error does not decrease: %v", k, errs)
			}
		}
		if errs[3] > 1e-6 {
			t.Errorf("%s: error %g at J = 24", k, errs[3])
		}
	}
	per, _ := NewPeriodic(0.7, 1.3)
	sp, _ := NewScaled(1.5, per)
	rbf, _ := NewRBF([]float64{0.4})
	sr, _ := NewScaled(0.6, rbf)
	sum, _ := NewSum(sp, sr)
	e, cols := hsFeaturesError(t, sum, x, 20, 40)
	t.Logf("%s: max abs error %.2g with %d columns", sum, e, cols)
	if cols != 40+41 || e > 1e-9 {
		t.Errorf("%s: %d columns, error %g", sum, cols, e)
	}
}

// TestHSFeaturesStationary: for a kernel with no periodic part the
// features are hilbert.go's Φ·diag(√S).
func TestHSFeaturesStationary(t *testing.T) {
	x := mat.NewDense(5, 1, []float64{0.3, -1.2, 2, 0.9, -0.4})
	rbf, _ := NewRBF([]float64{0.8})
	m32, _ := NewMatern(3, []float64{0.5})
	s1, _ := NewScaled(1.7, rbf)
	k, _ := NewSum(s1, m32)
	h, _ := NewHilbert(x, []int{12}, 2, nil, nil)
	f, err := NewHSFeatures(k, h, x, 5)
	if err != nil {
		t.Fatal(err)
	}
	phi, _ := h.Basis(x)
	s := make([]float64, 12)
	if err := h.SqrtDensity(k, s, nil); err != nil {
		t.Fatal(err)
	}
	val := make([]float64, 5*12)
	if err := f.Eval(k, nil, val, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		for j := range 12 {
			if want := phi.At(i, j) * s[j]; math.Abs(val[i*12+j]-want) > 1e-15 {
				t.Errorf("F[%d, %d] = %v, Φ√S = %v", i, j, val[i*12+j], want)
			}
		}
	}
}

// TestHSFeaturesGrad checks ∂F/∂h, every hyperparameter, against central
// differences, for periodic kernels alone, scaled, summed with stationary
// ones and under a scale of a sum; the period's enters through the basis.
func TestHSFeaturesGrad(t *testing.T) {
	x := mat.NewDense(6, 1, []float64{0.3, -1.2, 2, 0.9, -0.4, 1.4})
	per, _ := NewPeriodic(0.8, 1.7)
	per2, _ := NewPeriodic(1.6, 0.6)
	rbf, _ := NewRBF([]float64{0.6})
	m32, _ := NewMatern(3, []float64{0.9})
	sp, _ := NewScaled(1.3, per)
	sr, _ := NewScaled(0.5, rbf)
	sum, _ := NewSum(sp, sr)
	inner, _ := NewSum(per2, m32)
	outer, _ := NewScaled(2.2, inner)
	both, _ := NewSum(outer, sum)
	prod, _ := NewProduct(sp, rbf)    // (1.3·periodic)·rbf
	prod2, _ := NewProduct(m32, per2) // matern32·periodic
	sprod, _ := NewScaled(0.7, prod2)
	mixed, _ := NewSum(sprod, sp)
	for _, k := range []Kernel{per, sp, sum, both, prod, mixed} {
		h, _ := NewHilbert(x, []int{7}, 1.5, nil, nil)
		f, err := NewHSFeatures(k, h, x, 6)
		if err != nil {
			t.Fatal(err)
		}
		P, cols := k.NumHyper(), f.Cols()
		pos := make([]int, P)
		for i := range pos {
			pos[i] = i
		}
		val := make([]float64, 6*cols)
		jac := make([]float64, 6*cols*P)
		if err := f.Eval(k, pos, val, jac); err != nil {
			t.Fatal(err)
		}
		base := k.Hyper(nil)
		for p := range P {
			at := func(d float64) []float64 {
				hh := append([]float64(nil), base...)
				hh[p] += d
				kk, err := k.WithHyper(hh)
				if err != nil {
					t.Fatal(err)
				}
				out := make([]float64, 6*cols)
				if err := f.Eval(kk, nil, out, nil); err != nil {
					t.Fatal(err)
				}
				return out
			}
			eps := 1e-6 * base[p]
			hi, lo := at(eps), at(-eps)
			for e := range val {
				fd := (hi[e] - lo[e]) / (2 * eps)
				if got := jac[e*P+p]; math.Abs(got-fd) > 1e-7*math.Max(1, math.Abs(fd)) {
					t.Errorf("%s: ∂F[%d, %d]/∂%s = %v, finite differences %v", k, e/cols, e%cols, k.HyperNames()[p], got, fd)
				}
			}
		}
	}
}

// TestHSFeaturesLocallyPeriodic: a product periodic × stationary, on the
// Hilbert basis with the density Σ_j q_j² ½(S(ω − jω₀) + S(ω + jω₀)),
// converges to the exact product as m grows, on 41 points over [−1, 1]
// with c = 4 (the boundary's effect is rbf(1.2) at distance 6, 4·10⁻⁶):
// 1.3·periodic(1.5, 1.5)·rbf(1.2) has harmonics up to about 8ω₀ = 34, so
// m ≥ 34·2L/π ≈ 90 is needed. Measured max abs errors at m = 30, 60, 120:
// 2.8e-3, 5.1e-6, 4.8e-6 (the last two the boundary's effect).
func TestHSFeaturesLocallyPeriodic(t *testing.T) {
	x := mat.NewDense(41, 1, nil)
	for i := range 41 {
		x.Set(i, 0, -1+float64(i)/20)
	}
	per, _ := NewPeriodic(1.5, 1.5)
	sp, _ := NewScaled(1.3, per)
	rbf, _ := NewRBF([]float64{1.2})
	k, _ := NewProduct(sp, rbf)
	var errs []float64
	for _, m := range []int{30, 60, 120} {
		h, err := NewHilbert(x, []int{m}, 4, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := NewHSFeatures(k, h, x, 3)
		if err != nil {
			t.Fatal(err)
		}
		if f.Cols() != m {
			t.Fatalf("%d columns for m = %d", f.Cols(), m)
		}
		val := make([]float64, 41*m)
		if err := f.Eval(k, nil, val, nil); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for i := range 41 {
			for j := range 41 {
				a := 0.0
				for c := range m {
					a += val[i*m+c] * val[j*m+c]
				}
				worst = max(worst, math.Abs(a-k.Eval(x.RawRowView(i), x.RawRowView(j))))
			}
		}
		errs = append(errs, worst)
	}
	t.Logf("%s: max abs error at m = 30, 60, 120: %.2g", k, errs)
	if !(errs[1] < errs[0] && errs[2] <= errs[1]) || errs[2] > 1e-5 {
		t.Errorf("%s: errors %v", k, errs)
	}
}

func TestHSFeaturesRefuses(t *testing.T) {
	per, _ := NewPeriodic(1, 2)
	rbf, _ := NewRBF([]float64{1})
	prod, _ := NewProduct(rbf, rbf)
	rbf2, _ := NewRBF([]float64{1})
	prod2, _ := NewProduct(per, rbf2)
	rq, _ := NewRQ([]float64{1}, 2)
	for _, tc := range []struct {
		k    Kernel
		dim  int
		want string
	}{
		{per, 2, "on one input column"},
		{prod, 1, "only as periodic × a stationary kernel"},
		{prod2, 2, "only as periodic × a stationary kernel"},
		{rq, 1, "rational quadratic"},
	} {
		err := CheckHilbert(tc.k, tc.dim)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %d columns: %v, want %q", tc.k, tc.dim, err, tc.want)
		}
	}
	if err := CheckHilbert(per, 1); err != nil {
		t.Error(err)
	}
}
