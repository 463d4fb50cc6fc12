package bke

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// A one-term sum is LogDensity's density, value and gradient, under each
// prior, isotropic and ARD, in D = 1 and 2.
func TestSumOneTermIsRBF(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 40, dim, 1)
		z := randMatrix(rng, 7, dim, 1)
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			md, err := New(x, z, Options{Prior: pr, Eta: 1.5})
			if err != nil {
				t.Fatal(err)
			}
			for _, ell := range [][]float64{{0.7}, []float64{0.6, 1.3}[:dim]} {
				h := Hyper{Ell: ell, Amp: 1.4, Tau2: 0.3}
				var g Grad
				want, err := md.LogDensity(h, &g)
				if err != nil {
					t.Fatal(err)
				}
				var sg SumGrad
				got, err := md.SumLogDensity(SumHyper{Terms: []SumTerm{{Amp: 1.4, Ell: ell}}, Tau2: 0.3}, &sg)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(got-want) > 1e-10*math.Abs(want) {
					t.Errorf("D=%d %s ell=%v: sum %.15g, rbf %.15g", dim, pr, ell, got, want)
				}
				gw := append(append([]float64{g.Amp}, g.Ell...), g.Tau2)
				gs := append(append([]float64{sg.Terms[0].Amp}, sg.Terms[0].Ell...), sg.Tau2)
				for k := range gw {
					if math.Abs(gs[k]-gw[k]) > 1e-8*(1+math.Abs(gw[k])) {
						t.Errorf("D=%d %s ell=%v: gradient %d: sum %.12g, rbf %.12g", dim, pr, ell, k, gs[k], gw[k])
					}
				}
			}
		}
	}
}

// crossByQuadrature is ∫ k_s(x, u) k_t(u, y) ν(du) by the trapezoid rule on
// a grid per dimension (spectrally accurate for these Gaussian integrands),
// divided for the normalised measure by n_s n_t, n = π^{D/4} Π_d √ℓ_d.
func crossByQuadrature(measure Prior, eta float64, ls, lt, x, y []float64) float64 {
	dim := len(x)
	total := 1.0
	for d := 0; d < dim; d++ {
		a, b := ls[d], lt[d]
		lo := math.Min(x[d], y[d]) - 12*math.Max(a, b)
		hi := math.Max(x[d], y[d]) + 12*math.Max(a, b)
		const steps = 4000
		h := (hi - lo) / steps
		var s float64
		for k := 0; k <= steps; k++ {
			u := lo + float64(k)*h
			f := math.Exp(-0.5*(x[d]-u)*(x[d]-u)/(a*a) - 0.5*(u-y[d])*(u-y[d])/(b*b))
			if measure == Gaussian {
				f *= math.Exp(-0.5 * u * u / (eta * eta))
			}
			if k == 0 || k == steps {
				f /= 2
			}
			s += f * h
		}
		if measure == Normalised {
			s /= math.Sqrt(math.Pi * a * b)
		}
		total *= s
	}
	return total
}

// Every cross term r_st (two different lengthscales, isotropic or ARD) by
// one-dimensional quadrature per dimension, in D = 1 and 2, each measure;
// and the term for s = t equals PriorKernel.
func TestSumCrossTermsByQuadrature(t *testing.T) {
	for _, c := range []struct{ ls, lt, x, y []float64 }{
		{[]float64{0.3}, []float64{1.7}, []float64{0.4}, []float64{-0.9}},
		{[]float64{2.5}, []float64{0.2}, []float64{1.2}, []float64{1.5}},
		{[]float64{0.5, 0.5}, []float64{1.1, 1.1}, []float64{0.3, -1}, []float64{-0.2, 0.4}},
		{[]float64{0.4, 1.6}, []float64{0.9, 0.25}, []float64{1, 0.5}, []float64{-0.7, 0.1}},
	} {
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			var lf float64
			for d := range c.x {
				f, _, _ := crossFactor(pr, 1.3, c.ls[d], c.lt[d], c.x[d], c.y[d])
				lf += f
			}
			got := math.Exp(lf)
			want := crossByQuadrature(pr, 1.3, c.ls, c.lt, c.x, c.y)
			if math.Abs(got-want) > 1e-10*want {
				t.Errorf("%s ℓs=%v ℓt=%v: closed form %.15g, quadrature %.15g", pr, c.ls, c.lt, got, want)
			}
			pk, _ := NewPriorKernel(1, c.ls, pr, 1.3)
			var ls float64
			for d := range c.x {
				f, _, _ := crossFactor(pr, 1.3, c.ls[d], c.ls[d], c.x[d], c.y[d])
				ls += f
			}
			if want := pk.Eval(c.x, c.y); math.Abs(math.Exp(ls)-want) > 1e-13*want {
				t.Errorf("%s ℓ=%v: r_ss %.15g, PriorKernel %.15g", pr, c.ls, math.Exp(ls), want)
			}
		}
	}
}

// denseSum is the sum kernel's log density by brute force: log N(vec K;
// 0, 1ₙ1ₙᵀ ⊗ R + τ²I) with the dense mn×mn covariance, R from the cross
// terms by quadrature, plus Σ_i ½ log det(JᵀJ) with J by central
// differences of k in x.
func denseSum(t *testing.T, x, z *mat.Dense, pr Prior, eta float64, h SumHyper) float64 {
	n, dim := x.Dims()
	m, _ := z.Dims()
	ell := func(tt, d int) float64 {
		if len(h.Terms[tt].Ell) == 1 {
			return h.Terms[tt].Ell[0]
		}
		return h.Terms[tt].Ell[d]
	}
	full := func(tt int) []float64 {
		out := make([]float64, dim)
		for d := range out {
			out[d] = ell(tt, d)
		}
		return out
	}
	k := func(a, b []float64) float64 {
		var s float64
		for tt, term := range h.Terms {
			var q float64
			for d := range a {
				v := (a[d] - b[d]) / ell(tt, d)
				q += v * v
			}
			s += term.Amp * math.Exp(-q/2)
		}
		return s
	}
	r := mat.NewDense(m, m, nil)
	for a := 0; a < m; a++ {
		for b := 0; b < m; b++ {
			var v float64
			for s := range h.Terms {
				for tt := range h.Terms {
					v += h.Terms[s].Amp * h.Terms[tt].Amp * crossByQuadrature(pr, eta, full(s), full(tt), z.RawRowView(a), z.RawRowView(b))
				}
			}
			r.Set(a, b, v)
		}
	}
	c := mat.NewSymDense(n*m, nil)
	vk := make([]float64, n*m)
	for i := 0; i < n; i++ {
		for a := 0; a < m; a++ {
			vk[i*m+a] = k(x.RawRowView(i), z.RawRowView(a))
			for j := 0; j < n; j++ {
				for b := 0; b < m; b++ {
					v := r.At(a, b)
					if i == j && a == b {
						v += h.Tau2
					}
					c.SetSym(i*m+a, j*m+b, v)
				}
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		t.Fatal("dense covariance not positive definite")
	}
	sol := mat.NewVecDense(n*m, nil)
	if err := ch.SolveVecTo(sol, mat.NewVecDense(n*m, vk)); err != nil {
		t.Fatal(err)
	}
	val := -0.5 * (ch.LogDet() + mat.Dot(sol, mat.NewVecDense(n*m, vk)) + float64(n*m)*math.Log(2*math.Pi))
	const step = 1e-5
	for i := 0; i < n; i++ {
		j := mat.NewDense(m, dim, nil)
		for a := 0; a < m; a++ {
			for d := 0; d < dim; d++ {
				xp := append([]float64(nil), x.RawRowView(i)...)
				xm := append([]float64(nil), x.RawRowView(i)...)
				xp[d] += step
				xm[d] -= step
				j.Set(a, d, (k(xp, z.RawRowView(a))-k(xm, z.RawRowView(a)))/(2*step))
			}
		}
		var g mat.SymDense
		g.SymOuterK(1, j.T())
		val += 0.5 * math.Log(mat.Det(&g))
	}
	return val
}

func sumCases() []struct {
	dim   int
	terms []SumTerm
} {
	return []struct {
		dim   int
		terms []SumTerm
	}{
		{1, []SumTerm{{Amp: 0.8, Ell: []float64{0.3}}, {Amp: 1.7, Ell: []float64{1.4}}}},
		{2, []SumTerm{{Amp: 0.8, Ell: []float64{0.4}}, {Amp: 1.7, Ell: []float64{1.2}}}},
		{2, []SumTerm{{Amp: 0.6, Ell: []float64{0.4, 0.9}}, {Amp: 1.3, Ell: []float64{1.5, 0.7}}, {Amp: 0.9, Ell: []float64{0.8}}}},
	}
}

func TestSumDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 54))
	for _, c := range sumCases() {
		x := randMatrix(rng, 6, c.dim, 1)
		z := randMatrix(rng, 4, c.dim, 1)
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			md, err := New(x, z, Options{Prior: pr, Eta: 1.5})
			if err != nil {
				t.Fatal(err)
			}
			h := SumHyper{Terms: c.terms, Tau2: 0.4}
			got, err := md.SumLogDensity(h, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := denseSum(t, x, z, pr, 1.5, h)
			if math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
				t.Errorf("D=%d %s %d terms: %.12g, dense %.12g", c.dim, pr, len(c.terms), got, want)
			}
		}
	}
}

// The gradient in every c_t, ℓ_t and τ² against central differences in
// log θ.
func TestSumGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(55, 56))
	for _, c := range sumCases() {
		x := randMatrix(rng, 30, c.dim, 1)
		z := randMatrix(rng, 6, c.dim, 1)
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			md, err := New(x, z, Options{Prior: pr, Eta: 1.5, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkSumGradient(t, fmt.Sprintf("D=%d %s", c.dim, pr), md, c.terms, 0.4)
		}
	}
}

// checkSumGradient compares SumLogDensity's gradient with central
// differences in log θ.
func checkSumGradient(t *testing.T, name string, md *Model, terms []SumTerm, tau2 float64) {
	t.Helper()
	flat := func(terms []SumTerm, tau2 float64) []float64 {
		var v []float64
		for _, term := range terms {
			v = append(append(v, term.Amp), term.Ell...)
		}
		return append(v, tau2)
	}
	unflat := func(v []float64) SumHyper {
		var h SumHyper
		k := 0
		for _, term := range terms {
			h.Terms = append(h.Terms, SumTerm{Amp: v[k], Ell: append([]float64(nil), v[k+1:k+1+len(term.Ell)]...)})
			k += 1 + len(term.Ell)
		}
		h.Tau2 = v[k]
		return h
	}
	theta := flat(terms, tau2)
	var g SumGrad
	val, err := md.SumLogDensity(unflat(theta), &g)
	if err != nil {
		t.Fatal(name, err)
	}
	if v0, _ := md.SumLogDensity(unflat(theta), nil); v0 != val {
		t.Errorf("%s: value with gradient %.17g, without %.17g", name, val, v0)
	}
	f := func(lv []float64) float64 {
		v := make([]float64, len(lv))
		for k := range v {
			v[k] = math.Exp(lv[k])
		}
		l, err := md.SumLogDensity(unflat(v), nil)
		if err != nil {
			t.Fatal(name, err)
		}
		return l
	}
	lt := make([]float64, len(theta))
	for k := range lt {
		lt[k] = math.Log(theta[k])
	}
	want := fd.Gradient(nil, f, lt, &fd.Settings{Formula: fd.Central, Step: 1e-4})
	got := flat(g.Terms, g.Tau2)
	for k := range got {
		got[k] *= theta[k]
		if math.Abs(got[k]-want[k]) > 1e-6*(1+math.Abs(want[k])) {
			t.Errorf("%s: gradient %d is %.10g, finite difference %.10g", name, k, got[k], want[k])
		}
	}
}

// Far from every landmark (q ≈ 10⁴, every e underflows, one landmark
// dominating, so Cauchy–Binet) the Jacobian term stays finite and its
// gradient right; the published variant is refused.
func TestSumFarAndRefusals(t *testing.T) {
	rng := rand.New(rand.NewPCG(57, 58))
	z := randMatrix(rng, 5, 2, 1)
	x := mat.NewDense(2, 2, []float64{3, 3, 0.1, 0.2})
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := SumHyper{Terms: []SumTerm{{Amp: 1, Ell: []float64{0.03}}, {Amp: 2, Ell: []float64{0.05, 0.04}}}, Tau2: 1}
	v, err := md.SumLogDensity(h, nil)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		t.Errorf("far row: %v, %v", v, err)
	}
	checkSumGradient(t, "far row", md, h.Terms, h.Tau2)
	pub, _ := New(x, z, Options{Variant: Published})
	if _, err := pub.SumLogDensity(h, nil); err == nil {
		t.Error("published variant accepted a sum")
	}
}

// The Cauchy–Binet form, forced on every row, gives the value and gradient
// of the Cholesky form where both work (D = 2, isotropic and ARD terms).
func TestSumCauchyBinetMatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 60))
	x := randMatrix(rng, 20, 2, 1)
	z := randMatrix(rng, 5, 2, 1)
	md, err := New(x, z, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := SumHyper{Terms: sumCases()[2].terms, Tau2: 0.5}
	var g1, g2 SumGrad
	v1, err := md.SumLogDensity(h, &g1)
	if err != nil {
		t.Fatal(err)
	}
	sumForceCauchyBinet = true
	v2, err := md.SumLogDensity(h, &g2)
	sumForceCauchyBinet = false
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(v1-v2) > 1e-11*math.Abs(v1) {
		t.Errorf("Cholesky %.15g, Cauchy–Binet %.15g", v1, v2)
	}
	for k := range g1.Terms {
		a := append([]float64{g1.Terms[k].Amp}, g1.Terms[k].Ell...)
		b := append([]float64{g2.Terms[k].Amp}, g2.Terms[k].Ell...)
		for j := range a {
			if math.Abs(a[j]-b[j]) > 1e-9*(1+math.Abs(a[j])) {
				t.Errorf("term %d gradient %d: Cholesky %.12g, Cauchy–Binet %.12g", k, j, a[j], b[j])
			}
		}
	}
}

// BenchmarkSumLogDensity: the sum path (row by row in Go) beside the
// single-rbf pass, one worker, log density with gradient, at the Stan
// benchmark's shapes.
func BenchmarkSumLogDensity(b *testing.B) {
	for _, c := range []struct{ n, m, dim int }{{800, 20, 1}, {900, 30, 2}} {
		rng := rand.New(rand.NewPCG(61, uint64(c.dim)))
		md, err := New(randMatrix(rng, c.n, c.dim, 1), randMatrix(rng, c.m, c.dim, 1), Options{Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rbf/n=%d,m=%d,D=%d", c.n, c.m, c.dim), func(b *testing.B) {
			var g Grad
			for i := 0; i < b.N; i++ {
				if _, err := md.LogDensity(Hyper{Ell: []float64{0.8}, Amp: 1.2, Tau2: 1}, &g); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, nt := range []int{1, 2} {
			terms := []SumTerm{{Amp: 1.2, Ell: []float64{0.8}}, {Amp: 0.5, Ell: []float64{0.2}}}[:nt]
			b.Run(fmt.Sprintf("sum%d/n=%d,m=%d,D=%d", nt, c.n, c.m, c.dim), func(b *testing.B) {
				var g SumGrad
				for i := 0; i < b.N; i++ {
					if _, err := md.SumLogDensity(SumHyper{Terms: terms, Tau2: 1}, &g); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
