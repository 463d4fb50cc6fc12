package bke

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// randMatrix returns an r×c matrix of N(0, scale²) entries.
func randMatrix(rng *rand.Rand, r, c int, scale float64) *mat.Dense {
	a := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, scale*rng.NormFloat64())
		}
	}
	return a
}

// testCase is one configuration of the dense comparisons.
type testCase struct {
	n, m, dim int
	ard       bool
	prior     Prior
	amp, tau2 float64
}

func (c testCase) String() string {
	return fmt.Sprintf("n=%d m=%d D=%d ard=%v %v amp=%g tau2=%g", c.n, c.m, c.dim, c.ard, c.prior, c.amp, c.tau2)
}

func testCases() []testCase {
	var cs []testCase
	for dim := 1; dim <= 3; dim++ {
		for _, ard := range []bool{false, true} {
			if dim == 1 && ard {
				continue
			}
			for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
				cs = append(cs, testCase{n: 5 + dim, m: 3 + dim, dim: dim, ard: ard, prior: pr, amp: 1.7, tau2: 0.3})
			}
		}
	}
	cs = append(cs, testCase{n: 4, m: 2, dim: 1, prior: Normalised, amp: 1, tau2: 1})
	cs = append(cs, testCase{n: 9, m: 5, dim: 2, ard: true, prior: Normalised, amp: 0.4, tau2: 2.5})
	return cs
}

func (c testCase) setup(rng *rand.Rand) (x, z *mat.Dense, h Hyper, opt Options) {
	x = randMatrix(rng, c.n, c.dim, 1)
	z = randMatrix(rng, c.m, c.dim, 1)
	h = Hyper{Amp: c.amp, Tau2: c.tau2, Ell: []float64{0.6 + rng.Float64()}}
	if c.ard {
		h.Ell = make([]float64, c.dim)
		for d := range h.Ell {
			h.Ell[d] = 0.5 + rng.Float64()
		}
	}
	opt = Options{Prior: c.prior, Eta: 1.5}
	return x, z, h, opt
}

// seK is k(x, y) = amp exp(−½ Σ_d (x_d − y_d)²/ℓ_d²).
func seK(amp float64, ell, x, y []float64) float64 {
	var q float64
	for d := range x {
		l := ell[0]
		if len(ell) > 1 {
			l = ell[d]
		}
		q += (x[d] - y[d]) * (x[d] - y[d]) / (l * l)
	}
	return amp * math.Exp(-q/2)
}

// denseLogN returns log N(vec K; 0, 1ₙ1ₙᵀ ⊗ R + τ² I_mn) formed densely,
// with vec K = [φ(x_1); ...; φ(x_n)], φ(x) = [k(x, z_1) ... k(x, z_m)].
func denseLogN(t *testing.T, x, z *mat.Dense, h Hyper, opt Options) float64 {
	n, dim := x.Dims()
	m, _ := z.Dims()
	rk, err := NewPriorKernel(h.Amp, h.Ell, opt.Prior, opt.Eta)
	if err != nil {
		t.Fatal(err)
	}
	vec := mat.NewVecDense(n*m, nil)
	for i := 0; i < n; i++ {
		for l := 0; l < m; l++ {
			vec.SetVec(i*m+l, seK(h.Amp, h.Ell, x.RawRowView(i), z.RawRowView(l)))
		}
	}
	c := mat.NewSymDense(n*m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < m; l++ {
				for k := 0; k < m; k++ {
					v := rk.Eval(z.RawRowView(l), z.RawRowView(k))
					if i == j && l == k {
						v += h.Tau2
					}
					c.SetSym(i*m+l, j*m+k, v)
				}
			}
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(c) {
		t.Fatal("dense covariance not positive definite")
	}
	sol := mat.NewVecDense(n*m, nil)
	if err := chol.SolveVecTo(sol, vec); err != nil {
		t.Fatal(err)
	}
	_ = dim
	return -0.5 * (mat.Dot(vec, sol) + chol.LogDet() + float64(n*m)*math.Log(2*math.Pi))
}

// jacobianTerm returns ½ log det(JᵀJ) at x, with J_ld = ∂k(x, z_l)/∂x_d
// either written out (−k (x_d − z_ld)/ℓ_d²) or by central differences.
func jacobianTerm(x []float64, z *mat.Dense, h Hyper, finiteDiff bool) float64 {
	m, dim := z.Dims()
	j := mat.NewDense(m, dim, nil)
	row := make([]float64, dim)
	for l := 0; l < m; l++ {
		zl := z.RawRowView(l)
		if finiteDiff {
			fd.Gradient(row, func(u []float64) float64 { return seK(h.Amp, h.Ell, u, zl) }, x, &fd.Settings{Formula: fd.Central, Step: 1e-6})
		} else {
			k := seK(h.Amp, h.Ell, x, zl)
			for d := 0; d < dim; d++ {
				ld := h.Ell[0]
				if len(h.Ell) > 1 {
					ld = h.Ell[d]
				}
				row[d] = -k * (x[d] - zl[d]) / (ld * ld)
			}
		}
		j.SetRow(l, row)
	}
	var jtj mat.Dense
	jtj.Mul(j.T(), j)
	return 0.5 * math.Log(mat.Det(&jtj))
}

func TestLogDensityMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range testCases() {
		x, z, h, opt := c.setup(rng)
		md, err := New(x, z, opt)
		if err != nil {
			t.Fatal(err)
		}
		got, err := md.LogDensity(h, nil)
		if err != nil {
			t.Fatal(c, err)
		}
		want := denseLogN(t, x, z, h, opt)
		var jacFD float64
		for i := 0; i < c.n; i++ {
			exact := jacobianTerm(x.RawRowView(i), z, h, false)
			numeric := jacobianTerm(x.RawRowView(i), z, h, true)
			if math.Abs(exact-numeric) > 1e-6*(1+math.Abs(exact)) {
				t.Errorf("%v row %d: Jacobian term %g, with finite-difference J %g", c, i, exact, numeric)
			}
			want += exact
			jacFD += numeric
		}
		if math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("%v: closed form %.15g, dense %.15g (diff %g)", c, got, want, got-want)
		}
	}
}

// hyperVector flattens h to [ell..., amp, tau2] and back.
func hyperVector(h Hyper) []float64 {
	return append(append([]float64(nil), h.Ell...), h.Amp, h.Tau2)
}

func hyperFrom(v []float64, nell int) Hyper {
	return Hyper{Ell: append([]float64(nil), v[:nell]...), Amp: v[nell], Tau2: v[nell+1]}
}

func checkGradient(t *testing.T, name string, md *Model, h Hyper, tol float64) {
	t.Helper()
	var g Grad
	val, err := md.LogDensity(h, &g)
	if err != nil {
		t.Fatal(name, err)
	}
	val0, err := md.LogDensity(h, nil)
	if err != nil {
		t.Fatal(name, err)
	}
	if val != val0 {
		t.Errorf("%s: value with gradient %.17g, without %.17g", name, val, val0)
	}
	// Differentiate in log θ (every parameter is positive), then divide by θ.
	f := func(logv []float64) float64 {
		v := make([]float64, len(logv))
		for k := range v {
			v[k] = math.Exp(logv[k])
		}
		l, err := md.LogDensity(hyperFrom(v, len(h.Ell)), nil)
		if err != nil {
			t.Fatal(name, err)
		}
		return l
	}
	theta := hyperVector(h)
	logTheta := make([]float64, len(theta))
	for k := range theta {
		logTheta[k] = math.Log(theta[k])
	}
	want := fd.Gradient(nil, f, logTheta, &fd.Settings{Formula: fd.Central, Step: 1e-4})
	got := append(append([]float64(nil), g.Ell...), g.Amp, g.Tau2)
	for k := range got {
		// Compare ∂f/∂log θ = θ ∂f/∂θ.
		got[k] *= theta[k]
		if math.Abs(got[k]-want[k]) > tol*(1+math.Abs(want[k])) {
			t.Errorf("%s: gradient %d is %.10g, finite difference %.10g", name, k, got[k], want[k])
		}
	}
}

func TestLogDensityGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, c := range testCases() {
		c.n += 20
		x, z, h, opt := c.setup(rng)
		md, err := New(x, z, opt)
		if err != nil {
			t.Fatal(err)
		}
		checkGradient(t, c.String(), md, h, 1e-6)
	}
}

// TestLogDensityWorkers checks that the result does not depend on the number
// of workers, with several row blocks.
func TestLogDensityWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x := randMatrix(rng, 3*blockRows+17, 2, 1)
	z := randMatrix(rng, 7, 2, 1)
	h := Hyper{Ell: []float64{0.7, 1.1}, Tau2: 0.5}
	var ref float64
	var refG Grad
	for _, w := range []int{1, 2, 5} {
		md, err := New(x, z, Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		var g Grad
		v, err := md.LogDensity(h, &g)
		if err != nil {
			t.Fatal(err)
		}
		if w == 1 {
			ref, refG = v, g
			continue
		}
		if v != ref || g.Amp != refG.Amp || g.Tau2 != refG.Tau2 || g.Ell[0] != refG.Ell[0] || g.Ell[1] != refG.Ell[1] {
			t.Errorf("workers %d: %v %+v, 1 worker: %v %+v", w, v, g, ref, refG)
		}
	}
}
