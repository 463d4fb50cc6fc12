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

// naiveCentredGram is HKH from kernel evaluations and an explicit H.
func naiveCentredGram(k kernels.Kernel, x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	g := mat.NewDense(n, n, nil)
	h := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			g.Set(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
			h.Set(i, j, -1/float64(n))
		}
		h.Set(i, i, 1-1/float64(n))
	}
	var t, out mat.Dense
	t.Mul(h, g)
	out.Mul(&t, h)
	return &out
}

// eigenFactor is V·diag(√λ) over the eigenvalues above max·1e-12, as
// causal-learn's get_uuprod builds it.
func eigenFactor(a *mat.Dense) *mat.Dense {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var e mat.EigenSym
	e.Factorize(s, true)
	vals := e.Values(nil)
	var vecs mat.Dense
	e.VectorsTo(&vecs)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	var cols [][]float64
	for j, v := range vals {
		if v > top*1e-12 {
			c := mat.Col(nil, j, &vecs)
			for i := range c {
				c[i] *= math.Sqrt(v)
			}
			cols = append(cols, c)
		}
	}
	out := mat.NewDense(n, len(cols), nil)
	for j, c := range cols {
		out.SetCol(j, c)
	}
	return out
}

// TestKCIAgainstReference recomputes KCI as causal-learn's KCI_CInd does
// it — explicit centring matrices, an explicit inverse, the products of
// the eigenvectors of both residual kernels (uu) and the traces of uuᵀu
// and its square — and compares the statistic, mean, variance and p-value.
func TestKCIAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 30))
	n := 40
	z := randMat(r, n, 2)
	x, y := randMat(r, n, 1), randMat(r, n, 1)
	for i := 0; i < n; i++ {
		x.Set(i, 0, x.At(i, 0)+math.Sin(z.At(i, 0)))
		y.Set(i, 0, y.At(i, 0)+z.At(i, 0)*z.At(i, 1))
	}
	kx, ky, kz := rbfKernel(t, 1.3), rbfKernel(t, 0.9), rbfKernel(t, 1.1)
	const eps = 1e-3
	got, err := KCITest(context.Background(), x, y, z, kx, ky, kz, eps, 1)
	if err != nil {
		t.Fatal(err)
	}
	xa := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		xa.Set(i, 0, x.At(i, 0))
		xa.Set(i, 1, z.At(i, 0)/2)
		xa.Set(i, 2, z.At(i, 1)/2)
	}
	kxc, kyc, kzc := naiveCentredGram(kx, xa), naiveCentredGram(ky, y), naiveCentredGram(kz, z)
	var a, inv, rz mat.Dense
	a.CloneFrom(kzc)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+eps)
	}
	if err := inv.Inverse(&a); err != nil {
		t.Fatal(err)
	}
	rz.Scale(eps, &inv)
	resid := func(k *mat.Dense) *mat.Dense {
		var t1, t2 mat.Dense
		t1.Mul(&rz, k)
		t2.Mul(&t1, &rz)
		return &t2
	}
	kxr, kyr := resid(kxc), resid(kyc)
	stat := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			stat += kxr.At(i, j) * kyr.At(i, j)
		}
	}
	vx, vy := eigenFactor(kxr), eigenFactor(kyr)
	_, nx := vx.Dims()
	_, ny := vy.Dims()
	uu := mat.NewDense(n, nx*ny, nil)
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			for tt := 0; tt < n; tt++ {
				uu.Set(tt, i*ny+j, vx.At(tt, i)*vy.At(tt, j))
			}
		}
	}
	var prod, sq mat.Dense
	prod.Mul(uu, uu.T())
	sq.Mul(&prod, &prod)
	mean, variance := mat.Trace(&prod), 2*mat.Trace(&sq)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"statistic", got.Statistic, stat}, {"mean", got.NullMean, mean}, {"variance", got.NullVar, variance},
		{"p-value", got.PValue, gammaSurvival(stat, mean, variance)}} {
		if math.Abs(c.got-c.want) > 1e-8*math.Abs(c.want) {
			t.Errorf("%s: %.12g, reference %.12g", c.name, c.got, c.want)
		}
	}
}

// TestKCIWithoutZ: with no conditioning set KCI's statistic is n²·HSIC_b
// of x and y.
func TestKCIWithoutZ(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 32))
	n := 30
	x, y := randMat(r, n, 2), randMat(r, n, 1)
	kx, ky := rbfKernel(t, 1.2), rbfKernel(t, 0.7)
	got, err := KCITest(context.Background(), x, y, nil, kx, ky, nil, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := HSIC(kx, ky, x, y, Biased)
	if err != nil {
		t.Fatal(err)
	}
	if want := float64(n*n) * h; math.Abs(got.Statistic-want) > 1e-10*want {
		t.Errorf("statistic %.12g, n²·HSIC_b %.12g", got.Statistic, want)
	}
}

// TestRCITAgainstLeastSquares: RCIT's partial cross-covariance is the
// covariance of the residuals of ordinary least squares (with intercept)
// of the standardised x and y features on the z features, here computed
// by QR (the ridge 10⁻¹⁰ is negligible for these well-conditioned
// features); and the null's eigenvalues sum to the trace of (1/n) RᵀR,
// R the residuals' products.
func TestRCITAgainstLeastSquares(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 31))
	n := 200
	fx, fy, fz := randMat(r, n, 3), randMat(r, n, 4), randMat(r, n, 6)
	for i := 0; i < n; i++ {
		fx.Set(i, 0, fx.At(i, 0)+fz.At(i, 0))
		fy.Set(i, 1, fy.At(i, 1)+fz.At(i, 0)+0.3*fx.At(i, 2))
	}
	stat, lambda, err := rcitFromFeatures(fx, fy, fz)
	if err != nil {
		t.Fatal(err)
	}
	// RCIT standardises each feature first.
	for _, f := range []*mat.Dense{fx, fy, fz} {
		rows, cols := f.Dims()
		for j := 0; j < cols; j++ {
			var m, s2 float64
			for i := 0; i < rows; i++ {
				m += f.At(i, j) / float64(rows)
			}
			for i := 0; i < rows; i++ {
				s2 += (f.At(i, j) - m) * (f.At(i, j) - m)
			}
			sd := math.Sqrt(s2 / float64(rows-1))
			for i := 0; i < rows; i++ {
				f.Set(i, j, (f.At(i, j)-m)/sd)
			}
		}
	}
	design := mat.NewDense(n, 7, nil)
	for i := 0; i < n; i++ {
		design.Set(i, 0, 1)
		for j := 0; j < 6; j++ {
			design.Set(i, j+1, fz.At(i, j))
		}
	}
	ols := func(f *mat.Dense) *mat.Dense {
		var qr mat.QR
		qr.Factorize(design)
		var beta, fit, res mat.Dense
		if err := qr.SolveTo(&beta, false, f); err != nil {
			t.Fatal(err)
		}
		fit.Mul(design, &beta)
		res.Sub(f, &fit)
		return &res
	}
	rx, ry := ols(fx), ols(fy)
	want := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			c := 0.0
			for tt := 0; tt < n; tt++ {
				c += rx.At(tt, i) * ry.At(tt, j)
			}
			c /= float64(n - 1)
			want += c * c
		}
	}
	want *= float64(n)
	if math.Abs(stat-want) > 1e-8*want {
		t.Errorf("statistic %.12g, least squares %.12g", stat, want)
	}
	tr := 0.0
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			s := 0.0
			for tt := 0; tt < n; tt++ {
				d := rx.At(tt, i) * ry.At(tt, j)
				s += d * d
			}
			tr += s / float64(n)
		}
	}
	sum := 0.0
	for _, l := range lambda {
		sum += l
	}
	if math.Abs(sum-tr) > 1e-8*tr {
		t.Errorf("Σλ = %.12g, trace of the products' covariance %.12g", sum, tr)
	}
}

// ciData draws z (2 columns), x = sin(z₁) + e, y = z₁z₂/2 + e' (+ b·x),
// standardised.
func ciData(r *rand.Rand, n int, b float64) (x, y, z *mat.Dense) {
	z = randMat(r, n, 2)
	x, y = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		xi := math.Sin(z.At(i, 0)) + 0.5*r.NormFloat64()
		x.Set(i, 0, xi)
		y.Set(i, 0, z.At(i, 0)*z.At(i, 1)/2+0.5*r.NormFloat64()+b*xi*xi)
	}
	std := func(m *mat.Dense) *mat.Dense {
		rows, cols := m.Dims()
		for j := 0; j < cols; j++ {
			var s, s2 float64
			for i := 0; i < rows; i++ {
				s += m.At(i, j)
			}
			s /= float64(rows)
			for i := 0; i < rows; i++ {
				s2 += (m.At(i, j) - s) * (m.At(i, j) - s)
			}
			sd := math.Sqrt(s2 / float64(rows))
			for i := 0; i < rows; i++ {
				m.Set(i, j, (m.At(i, j)-s)/sd)
			}
		}
		return m
	}
	return std(x), std(y), std(z)
}

// ciRejections counts the rejections at 0.05 of KCI or RCIT.
func ciRejections(t *testing.T, method string, reps, n int, b float64, seed uint64) int {
	t.Helper()
	rej := 0
	for rep := 0; rep < reps; rep++ {
		x, y, z := ciData(rand.New(rand.NewPCG(seed, uint64(rep))), n, b)
		var res CIResult
		var err error
		if method == "kci" {
			res, err = KCITest(context.Background(), x, y, z, nil, nil, nil, 0, uint64(rep))
		} else {
			res, err = RCITTest(context.Background(), x, y, z, 0, 0, "", uint64(rep))
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.PValue <= 0.05 {
			rej++
		}
	}
	return rej
}

// TestCILevel: under x ⟂ y | z with nonlinear links the rejection rate at
// 0.05 lies within 3 binomial SE of α: 60 replications (KCI n = 150,
// RCIT n = 400) in the suite, KML_FULL=1 (CI, fulltest) 400.
func TestCILevel(t *testing.T) {
	reps := 60
	if fulltest.Enabled() {
		reps = 400
	}
	se := math.Sqrt(0.05 * 0.95 / float64(reps))
	for i, c := range []struct {
		method string
		n      int
	}{{"kci", 150}, {"rcit", 400}} {
		rej := ciRejections(t, c.method, reps, c.n, 0, 800+uint64(i))
		rate := float64(rej) / float64(reps)
		t.Logf("%s: rejection rate %.3f over %d replications of %d rows (SE %.4f)", c.method, rate, reps, c.n, se)
		if math.Abs(rate-0.05) > 3*se {
			t.Errorf("%s: rejection rate %.3f is more than 3 SE from 0.05", c.method, rate)
		}
	}
}

// TestCIPower: y depending on x² beyond z is detected.
func TestCIPower(t *testing.T) {
	for i, c := range []struct {
		method string
		n      int
	}{{"kci", 150}, {"rcit", 400}} {
		if rej := ciRejections(t, c.method, 10, c.n, 0.8, 900+uint64(i)); rej < 9 {
			t.Errorf("%s: %d/10 rejections", c.method, rej)
		}
	}
}

// TestCICancel: a cancelled context stops KCI and RCIT.
func TestCICancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x, y, z := ciData(rand.New(rand.NewPCG(40, 33)), 50, 0)
	if _, err := KCITest(ctx, x, y, z, nil, nil, nil, 0, 1); err == nil {
		t.Error("KCI: no error after cancellation")
	}
	if _, err := RCITTest(ctx, x, y, z, 0, 0, "", 1); err == nil {
		t.Error("RCIT: no error after cancellation")
	}
}
