package kst

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
)

var hypers = []Hyper{
	{Sigma0: 1, Alpha: 1, Beta: 1},
	{Sigma0: 0.5, Alpha: 3, Beta: 0.01},
	{Sigma0: 2, Alpha: 0.01, Beta: 10},
}

// The kernel formula with the linear kernel on the explicit features
// (x, x²) equals the feature-space Student-t with the corrected Λ_N.
func TestLinearKernelOnFeaturesEqualsFeatureSpace(t *testing.T) {
	xs := mixtureData(testStream(1, t.Name()), 14)
	grid := make([]float64, 41)
	for i := range grid {
		grid[i] = -3 + 6*float64(i)/40
	}
	var data [][]float64
	for _, x := range xs {
		data = append(data, phi(x))
	}
	lin, _ := kernels.NewLinear(0)
	for _, h := range hypers {
		m, err := Fit(lin, features(xs), h)
		if err != nil {
			t.Fatal(err)
		}
		got := logpdf(t, m, features(grid))
		direct := niwStudentT(t, data, h, false)
		paper := niwStudentT(t, data, h, true)
		worst := 0.0
		for i := range grid {
			want := direct(phi(grid[i])) - direct(phi(grid[0]))
			if d := got[i] - got[0]; !relClose(d, want, 1e-10) {
				t.Errorf("%+v at x = %g: kernel form gives Δlog q = %.15g, feature space %.15g", h, grid[i], d, want)
			}
			pw := paper(phi(grid[i])) - paper(phi(grid[0]))
			worst = max(worst, math.Abs(pw-want))
		}
		// The correction matters: the paper's Λ_N gives a different shape.
		if worst < 1e-3 {
			t.Errorf("%+v: the paper's eq. (3) agrees with the corrected Λ_N to %g; the test cannot tell them apart", h, worst)
		}
	}
}

// With the one-dimensional kernel k(x,y) = xy + x²y², the Jacobian factor
// is √(1 + 4x²) (the paper's Figure 1), found from GradX.
func TestJacobianOfParabola(t *testing.T) {
	xs := mixtureData(testStream(2, t.Name()), 14)
	var data [][]float64
	for _, x := range xs {
		data = append(data, phi(x))
	}
	h := Hyper{Sigma0: 1, Alpha: 2, Beta: 0.1}
	m, err := Fit(parabola{}, column(xs), h)
	if err != nil {
		t.Fatal(err)
	}
	if m.ShiftInvariant() {
		t.Fatal("parabola is not shift-invariant")
	}
	grid := []float64{-2.5, -1, -0.3, 0, 0.2, 1.1, 2.7}
	got := logpdf(t, m, column(grid))
	direct := niwStudentT(t, data, h, false)
	ref := func(x float64) float64 { return direct(phi(x)) + 0.5*math.Log(1+4*x*x) }
	for i, x := range grid {
		if d, want := got[i]-got[0], ref(x)-ref(grid[0]); !relClose(d, want, 1e-10) {
			t.Errorf("x = %g: Δlog q = %.15g, want %.15g", x, d, want)
		}
	}
}

// FeatureMetric of poly(p, c) matches its closed form
// G = p(p−1)b^{p−2} xxᵀ + p b^{p−1} I, b = xᵀx + c; for rbf it is the
// constant diag(1/ℓ²).
func TestFeatureMetric(t *testing.T) {
	x := []float64{0.3, -1.2, 0.7}
	for _, p := range []int{1, 2, 3, 4} {
		k, _ := kernels.NewPoly(p, 0.5)
		g := FeatureMetric(k, x)
		b := linDot(x, x) + 0.5
		pf := float64(p)
		for i := range x {
			for j := range x {
				want := pf * (pf - 1) * math.Pow(b, pf-2) * x[i] * x[j]
				if i == j {
					want += pf * math.Pow(b, pf-1)
				}
				if !relClose(g.At(i, j), want, 1e-7) {
					t.Errorf("poly(%d): G[%d,%d] = %.12g, want %.12g", p, i, j, g.At(i, j), want)
				}
			}
		}
	}
	k, _ := kernels.NewRBF([]float64{0.5, 2, 1})
	if !ShiftInvariant(k) {
		t.Fatal("rbf is shift-invariant")
	}
	for _, at := range [][]float64{x, {5, 0, -3}} {
		g := FeatureMetric(k, at)
		for i, l := range []float64{0.5, 2, 1} {
			if !relClose(g.At(i, i), 1/(l*l), 1e-6) {
				t.Errorf("rbf at %v: G[%d,%d] = %g, want 1/ℓ² = %g", at, i, i, g.At(i, i), 1/(l*l))
			}
		}
	}
}

func linDot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// For any kernel the fitted model agrees with eq. (4) evaluated densely:
// the uncentred Gram matrices and (σ0⁴(I + 11ᵀ/β) + σ0²K)⁻¹ formed and
// inverted explicitly.
func TestDenseEq4(t *testing.T) {
	r := testStream(3, t.Name())
	n, d := 30, 3
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, r.NormFloat64())
		}
	}
	q := mat.NewDense(20, d, nil)
	for i := 0; i < 20; i++ {
		for j := 0; j < d; j++ {
			q.Set(i, j, 2*r.NormFloat64())
		}
	}
	rbf, _ := kernels.NewRBF([]float64{0.8, 1.5, 1})
	m52, _ := kernels.NewMatern(5, []float64{1.2})
	poly, _ := kernels.NewPoly(2, 1)
	sum, _ := kernels.NewSum(rbf, poly)
	for _, k := range []kernels.Kernel{rbf, m52, poly, sum} {
		for _, h := range hypers {
			m, err := Fit(k, x, h)
			if err != nil {
				t.Fatal(err)
			}
			got := logpdf(t, m, q)
			for i := 0; i < 20; i++ {
				want := denseLogQ(t, k, x, q.RawRowView(i), h)
				if !ShiftInvariant(k) {
					want += LogJacobian(k, q.RawRowView(i))
				}
				if !relClose(got[i], want, 1e-9) {
					t.Errorf("%s %+v point %d: log q = %.15g, dense %.15g", k, h, i, got[i], want)
				}
			}
		}
	}
}

func denseLogQ(t *testing.T, k kernels.Kernel, x *mat.Dense, at []float64, h Hyper) float64 {
	n, _ := x.Dims()
	nf := float64(n)
	c := nf + h.Beta
	s2 := h.Sigma0 * h.Sigma0
	a := mat.NewDense(n, n, nil)
	kx := make([]float64, n)
	var sumK, sumKx float64
	rowSum := make([]float64, n)
	for i := 0; i < n; i++ {
		kx[i] = k.Eval(at, x.RawRowView(i))
		sumKx += kx[i]
		for j := 0; j < n; j++ {
			kij := k.Eval(x.RawRowView(i), x.RawRowView(j))
			sumK += kij
			rowSum[i] += kij
			v := s2*s2/h.Beta + s2*kij
			if i == j {
				v += s2 * s2
			}
			a.Set(i, j, v)
		}
	}
	var inv mat.Dense
	if err := inv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	v := mat.NewVecDense(n, nil)
	for i := range kx {
		v.SetVec(i, kx[i]-rowSum[i]/c)
	}
	ff := k.Eval(at, at) - 2*sumKx/c + sumK/(c*c)
	quad := ff/s2 - mat.Inner(v, &inv, v)
	return -(1 + nf + h.Alpha) / 2 * math.Log((1+c)/c+quad)
}

// Values do not depend on the number of cores or on how points are
// grouped into calls, for inputs below and above the dimension (16) where
// the kernel library switches to BLAS distances.
func TestLogPDFDeterministic(t *testing.T) {
	for _, d := range []int{4, 20} {
		logPDFDeterministic(t, d)
	}
}

func logPDFDeterministic(t *testing.T, d int) {
	r := testStream(uint64(4+d), t.Name())
	n := 150
	x := mat.NewDense(n, d, nil)
	q := mat.NewDense(300, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	for i := range q.RawMatrix().Data {
		q.RawMatrix().Data[i] = r.NormFloat64()
	}
	k, _ := kernels.NewRBF([]float64{1.3 * math.Sqrt(float64(d))})
	m, err := Fit(k, x, Hyper{Sigma0: 1, Alpha: 1, Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	all := logpdf(t, m, q)
	old := setProcs(1)
	defer setProcs(old)
	m1, err := Fit(k, x, Hyper{Sigma0: 1, Alpha: 1, Beta: 1})
	if err != nil {
		t.Fatal(err)
	}
	one := logpdf(t, m1, q)
	for i := range all {
		if all[i] != one[i] {
			t.Fatalf("d = %d, point %d: %v fitted and evaluated on all cores, %v on one", d, i, all[i], one[i])
		}
	}
	// Blocks are fixed: a block evaluated alone gives the same bits.
	part := logpdf(t, m, q.Slice(64, 128, 0, d).(*mat.Dense))
	for i := range part {
		if part[i] != all[64+i] {
			t.Fatalf("point %d: %v alone, %v in the batch", 64+i, part[i], all[64+i])
		}
	}
}

func TestKDE(t *testing.T) {
	r := testStream(5, t.Name())
	x := mat.NewDense(40, 2, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	q := mat.NewDense(70, 2, nil)
	for i := range q.RawMatrix().Data {
		q.RawMatrix().Data[i] = 2 * r.NormFloat64()
	}
	rbf, _ := kernels.NewRBF([]float64{0.7, 1.1})
	m52, _ := kernels.NewMatern(5, []float64{0.7})
	scaled, _ := kernels.NewScaled(2.5, rbf)
	for _, k := range []kernels.Kernel{rbf, m52, scaled} {
		e, err := NewKDE(k, x)
		if err != nil {
			t.Fatal(err)
		}
		got := logpdf(t, e, q)
		for j := 0; j < 70; j++ {
			s := 0.0
			for i := 0; i < 40; i++ {
				s += k.Eval(q.RawRowView(j), x.RawRowView(i))
			}
			if want := math.Log(s / 40); !relClose(got[j], want, 1e-12) {
				t.Errorf("%s point %d: %v, want %v", k, j, got[j], want)
			}
		}
	}
}

// The rbf Parzen window is computed in log space: it matches the direct sum
// where that is representable and stays finite (and exact for one training
// point) where every kernel value underflows.
func TestKDELogSpace(t *testing.T) {
	k, _ := kernels.NewRBF([]float64{0.01, 0.02})
	e, _ := NewKDE(k, mat.NewDense(2, 2, []float64{0, 0, 0.01, 0}))
	got := logpdf(t, e, mat.NewDense(2, 2, []float64{0.005, 0.01, 3, 0}))
	want0 := math.Log((math.Exp(-0.5*(0.25+0.25)) + math.Exp(-0.5*(0.25+0.25))) / 2)
	if !relClose(got[0], want0, 1e-12) {
		t.Errorf("near: %v, want %v", got[0], want0)
	}
	// Far: log((e^{-u1/2} + e^{-u2/2})/2) with u = (3/0.01)², (2.99/0.01)².
	u1, u2 := 90000.0, 89401.0
	want1 := -u2/2 + math.Log((1+math.Exp(-(u1-u2)/2))/2)
	if !relClose(got[1], want1, 1e-12) {
		t.Errorf("far: %v, want %v", got[1], want1)
	}
	// c·rbf takes the same path, shifted by log c.
	scaled, _ := kernels.NewScaled(3, k)
	e, _ = NewKDE(scaled, mat.NewDense(2, 2, []float64{0, 0, 0.01, 0}))
	got = logpdf(t, e, mat.NewDense(1, 2, []float64{3, 0}))
	if want := want1 + math.Log(3); !relClose(got[0], want, 1e-12) {
		t.Errorf("far, 3·rbf: %v, want %v", got[0], want)
	}
}
