package bke

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCauchyBinetMatchesFastPath runs both ways of finishing a row's
// Jacobian on well-conditioned rows, where both apply.
func TestCauchyBinetMatchesFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for dim := 1; dim <= 4; dim++ {
		for _, ard := range []bool{false, true} {
			x := randMatrix(rng, 10, dim, 1)
			z := randMatrix(rng, 7, dim, 1)
			md, err := New(x, z, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			h := Hyper{Ell: []float64{0.9}, Tau2: 1}
			if ard {
				h.Ell = make([]float64, dim)
				for d := range h.Ell {
					h.Ell[d] = 0.6 + 0.3*float64(d)
				}
			}
			p, err := md.prepare(h, true)
			if err != nil {
				t.Fatal(err)
			}
			ps := &pass{md: md, p: p, grad: true, jac: true, np: len(p.ell)}
			ps.shifts(new(passBufs))
			sc := ps.newScratch()
			buf := make([]float64, ps.blockSize())
			for i := 0; i < md.n; i++ {
				clear(buf)
				if err := ps.row(sc, ps.view(buf), i); err != nil {
					t.Fatal(err)
				}
				qmin := math.Inf(1)
				for _, q := range sc.q {
					qmin = math.Min(qmin, q)
				}
				fast, ok := ps.closeJacobian(sc)
				if !ok {
					continue
				}
				fast -= float64(dim) * qmin / 2
				fastDJ := append([]float64(nil), sc.dj...)
				slow, err := ps.cauchyBinet(sc, i)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(fast-slow) > 1e-11*(1+math.Abs(slow)) {
					t.Errorf("D=%d ard=%v row %d: ½ log det G = %.15g (normal equations), %.15g (Cauchy–Binet)", dim, ard, i, fast, slow)
				}
				for k := range fastDJ {
					if math.Abs(fastDJ[k]-sc.dj[k]) > 1e-10*(1+math.Abs(sc.dj[k])) {
						t.Errorf("D=%d ard=%v row %d: Σ λ s[%d] = %.15g (normal equations), %.15g (Cauchy–Binet)", dim, ard, i, k, fastDJ[k], sc.dj[k])
					}
				}
				logSpace, err := ps.cbLog(sc, i)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(fast-logSpace) > 1e-11*(1+math.Abs(logSpace)) {
					t.Errorf("D=%d ard=%v row %d: ½ log det G = %.15g (normal equations), %.15g (log-space Cauchy–Binet)", dim, ard, i, fast, logSpace)
				}
				for k := range fastDJ {
					if math.Abs(fastDJ[k]-sc.dj[k]) > 1e-10*(1+math.Abs(sc.dj[k])) {
						t.Errorf("D=%d ard=%v row %d: Σ λ s[%d] = %.15g (normal equations), %.15g (log-space Cauchy–Binet)", dim, ard, i, k, fastDJ[k], sc.dj[k])
					}
				}
			}
		}
	}
}

// bigPrec is enough bits for weights that differ by factors of e^-3000.
const bigPrec = 4096

// bigExp returns exp(v) as a big.Float: 2^k · exp(r) with v = k ln 2 + r.
func bigExp(v float64) *big.Float {
	k := math.Floor(v / math.Ln2)
	r := v - k*math.Ln2
	f := new(big.Float).SetPrec(bigPrec).SetFloat64(math.Exp(r))
	return f.SetMantExp(f, int(k))
}

// bigLog returns log(f) for a positive big.Float.
func bigLog(f *big.Float) float64 {
	mant := new(big.Float)
	e := f.MantExp(mant)
	m, _ := mant.Float64()
	return math.Log(m) + float64(e)*math.Ln2
}

// referenceJacobian returns ½ log det(JᵀJ) at x from G = Σ_l k_l² v_l v_lᵀ
// formed and reduced in 4096-bit arithmetic (Gaussian elimination, no
// pivoting needed for a positive definite G), the weights k_l² = amp²
// exp(−q_l) entered as exact powers of two times float64 mantissas.
func referenceJacobian(x []float64, z *mat.Dense, h Hyper) float64 {
	m, dim := z.Dims()
	g := make([]*big.Float, dim*dim)
	for k := range g {
		g[k] = new(big.Float).SetPrec(bigPrec)
	}
	for l := 0; l < m; l++ {
		zl := z.RawRowView(l)
		var q float64
		for d := 0; d < dim; d++ {
			ld := h.Ell[0]
			if len(h.Ell) > 1 {
				ld = h.Ell[d]
			}
			q += (x[d] - zl[d]) * (x[d] - zl[d]) / (ld * ld)
		}
		w := bigExp(-q)
		for a := 0; a < dim; a++ {
			for b := 0; b < dim; b++ {
				t := new(big.Float).SetPrec(bigPrec).SetFloat64(x[a] - zl[a])
				t.Mul(t, new(big.Float).SetPrec(bigPrec).SetFloat64(x[b]-zl[b]))
				t.Mul(t, w)
				g[a*dim+b].Add(g[a*dim+b], t)
			}
		}
	}
	det := new(big.Float).SetPrec(bigPrec).SetFloat64(1)
	for c := 0; c < dim; c++ {
		piv := g[c*dim+c]
		det.Mul(det, piv)
		for r := c + 1; r < dim; r++ {
			f := new(big.Float).SetPrec(bigPrec).Quo(g[r*dim+c], piv)
			for k := c; k < dim; k++ {
				t := new(big.Float).SetPrec(bigPrec).Mul(f, g[c*dim+k])
				g[r*dim+k].Sub(g[r*dim+k], t)
			}
		}
	}
	amp := h.Amp
	if amp == 0 {
		amp = 1
	}
	var sumLogEll float64
	for d := 0; d < dim; d++ {
		ld := h.Ell[0]
		if len(h.Ell) > 1 {
			ld = h.Ell[d]
		}
		sumLogEll += math.Log(ld)
	}
	return 0.5*bigLog(det) + float64(dim)*math.Log(amp) - 2*sumLogEll
}

// naiveJacobian is ½ log det(JᵀJ) in plain float64, as eq. (13) reads.
func naiveJacobian(x []float64, z *mat.Dense, h Hyper) float64 {
	return jacobianTerm(x, z, h, false)
}

// farCase is data far from every landmark relative to the lengthscale.
type farCase struct {
	name string
	x, z *mat.Dense
	h    Hyper
}

func farCases() []farCase {
	return []farCase{
		{
			// D = 2: landmarks in the unit square, lengthscale 0.05, a point
			// at distance 5 (every k(x, z_l) underflows: exp(−5000)) and one
			// at distance 0.9 where one landmark dominates by e^-100.
			name: "2-D far",
			x:    mat.NewDense(4, 2, []float64{0.5, 0.5, 0.2, 0.7, 4, 3, 1.5, 1.2}),
			z:    mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.4, 0.6}),
			h:    Hyper{Ell: []float64{0.05}, Amp: 1.3, Tau2: 0.5},
		},
		{
			name: "2-D far, ARD",
			x:    mat.NewDense(3, 2, []float64{0.5, 0.5, -3, 2.5, 1.5, 1.2}),
			z:    mat.NewDense(5, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1, 0.4, 0.6}),
			h:    Hyper{Ell: []float64{0.04, 0.07}, Tau2: 0.5},
		},
		{
			// D = 1: a point exactly on a landmark whose neighbours are 5
			// and 9 away (its only non-zero terms are e^-1250 and less).
			name: "1-D on a landmark",
			x:    mat.NewDense(3, 1, []float64{0, 0.3, 20}),
			z:    mat.NewDense(3, 1, []float64{0, 5, 9}),
			h:    Hyper{Ell: []float64{0.1}, Tau2: 1},
		},
		{
			name: "3-D far",
			x:    mat.NewDense(3, 3, []float64{0.5, 0.5, 0.5, 3, -2, 4, 1.4, 1.3, 0.2}),
			z:    mat.NewDense(5, 3, []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.7, 0.6, 0.5}),
			h:    Hyper{Ell: []float64{0.06}, Amp: 0.8, Tau2: 0.5},
		},
	}
}

// TestFarFromLandmarks checks points whose Jacobian underflows or cancels in
// plain arithmetic against a 4096-bit reference, and the gradient there
// against finite differences.
func TestFarFromLandmarks(t *testing.T) {
	for _, c := range farCases() {
		md, err := New(c.x, c.z, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := md.LogDensity(c.h, nil)
		if err != nil {
			t.Fatal(c.name, err)
		}
		if math.IsInf(got, 0) || math.IsNaN(got) {
			t.Fatalf("%s: log density %v", c.name, got)
		}
		h := c.h
		if h.Amp == 0 {
			h.Amp = 1
		}
		want := denseLogN(t, c.x, c.z, h, Options{})
		naiveFails := false
		n, _ := c.x.Dims()
		for i := 0; i < n; i++ {
			ref := referenceJacobian(c.x.RawRowView(i), c.z, c.h)
			want += ref
			naive := naiveJacobian(c.x.RawRowView(i), c.z, h)
			if math.IsInf(naive, 0) || math.IsNaN(naive) || math.Abs(naive-ref) > 1e-6*math.Abs(ref) {
				naiveFails = true
			}
		}
		if !naiveFails {
			t.Errorf("%s: plain float64 gets every Jacobian right: the case tests nothing", c.name)
		}
		if math.Abs(got-want) > 1e-11*math.Abs(want) {
			t.Errorf("%s: log density %.15g, reference %.15g (diff %g)", c.name, got, want, got-want)
		}
		checkGradient(t, c.name, md, h, 1e-6)
	}
}

func TestSingularJacobian(t *testing.T) {
	x := mat.NewDense(3, 1, []float64{0.5, 2, 1})
	z := mat.NewDense(1, 1, []float64{2})
	md, err := New(x, z, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = md.LogDensity(Hyper{Ell: []float64{1}, Tau2: 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("error %v does not name row 2", err)
	}
}

func TestSubsets(t *testing.T) {
	idx := []int{0, 1, 2}
	count := 1
	for nextSubset(idx, 6) {
		count++
		if !(idx[0] < idx[1] && idx[1] < idx[2] && idx[2] < 6) {
			t.Fatalf("bad subset %v", idx)
		}
	}
	if count != 20 || binomial(6, 3) != 20 {
		t.Errorf("%d subsets of 3 from 6, binomial %g; want 20", count, binomial(6, 3))
	}
}

// TestCauchyBinetPruning compares the pruned, rescaled Cauchy–Binet sum
// with the full log-space one on rows at a lengthscale so small that the
// landmarks' weights span hundreds of orders of magnitude.
func TestCauchyBinetPruning(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for _, dim := range []int{1, 2, 3} {
		for _, ard := range []bool{false, true} {
			md, err := New(randMatrix(rng, 30, dim, 1), randMatrix(rng, 12, dim, 1), Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			h := Hyper{Ell: []float64{0.02}, Tau2: 1}
			if ard {
				h.Ell = make([]float64, dim)
				for d := range h.Ell {
					h.Ell[d] = 0.015 + 0.01*float64(d)
				}
			}
			p, err := md.prepare(h, true)
			if err != nil {
				t.Fatal(err)
			}
			ps := &pass{md: md, p: p, grad: true, jac: true, np: len(p.ell)}
			ps.shifts(new(passBufs))
			sc := ps.newScratch()
			buf := make([]float64, ps.blockSize())
			for i := 0; i < md.n; i++ {
				if err := ps.rowGeneral(sc, ps.view(buf), i); err != nil {
					t.Fatal(err)
				}
				pruned, err := ps.cauchyBinet(sc, i)
				if err != nil {
					t.Fatal(err)
				}
				dj := append([]float64(nil), sc.dj...)
				full, err := ps.cbLog(sc, i)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(pruned-full) > 1e-12*math.Abs(full) {
					t.Errorf("D=%d ard=%v row %d: ½ log det G = %.15g pruned, %.15g in full", dim, ard, i, pruned, full)
				}
				for k := range dj {
					if math.Abs(dj[k]-sc.dj[k]) > 1e-10*math.Abs(sc.dj[k]) {
						t.Errorf("D=%d ard=%v row %d: Σ λ s[%d] = %.15g pruned, %.15g in full", dim, ard, i, k, dj[k], sc.dj[k])
					}
				}
			}
		}
	}
}

// TestCloseRotatedMatchesCauchyBinet checks closeRotated against
// cauchyBinet, row by row, on points in clusters around landmarks 10
// apart at lengthscales well below that (the bench/stan bke2 shape, where
// one landmark dominates many rows' G̃ and small2 fails): ½ log det G and
// tr(G⁻¹T_p) to 1e-12, isotropic and ARD. It also checks that such rows
// occur and that closeRotated takes most of them.
func TestCloseRotatedMatchesCauchyBinet(t *testing.T) {
	rng := rand.New(rand.NewPCG(3015, 3016))
	const n, m = 300, 12
	x := mat.NewDense(n, 2, nil)
	z := mat.NewDense(m, 2, nil)
	for l := 0; l < m; l++ {
		z.Set(l, 0, float64(l%4)*10+rng.NormFloat64())
		z.Set(l, 1, float64(l/4)*10+rng.NormFloat64())
	}
	for i := 0; i < n; i++ {
		c := rng.IntN(m)
		x.Set(i, 0, z.At(c, 0)+rng.NormFloat64())
		x.Set(i, 1, z.At(c, 1)+rng.NormFloat64())
	}
	md, err := New(x, z, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The whole log density and gradient, through the tiles or rows (and
	// closeRotated) and through the reference rows (cauchyBinet).
	defer func() { generalRows = false }()
	for _, ell := range [][]float64{{1.6}, {1.2, 2.1}} {
		h := Hyper{Ell: ell, Tau2: 1}
		generalRows = true
		var gRef Grad
		ref, err := md.LogDensity(h, &gRef)
		if err != nil {
			t.Fatal(err)
		}
		generalRows = false
		var g Grad
		v, err := md.LogDensity(h, &g)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(v-ref) > 1e-12*math.Abs(ref) || math.Abs(g.Ell[0]-gRef.Ell[0]) > 1e-12*math.Max(1, math.Abs(gRef.Ell[0])) {
			t.Errorf("ell=%v: log density %.17g, d/dell %.17g; reference %.17g, %.17g", ell, v, g.Ell[0], ref, gRef.Ell[0])
		}
	}
	for _, ell := range [][]float64{{1.6}, {0.8}, {1.2, 2.1}} {
		p, err := md.prepare(Hyper{Ell: ell, Tau2: 1}, true)
		if err != nil {
			t.Fatal(err)
		}
		ps := &pass{md: md, p: p, grad: true, jac: true, np: len(ell)}
		ps.shifts(new(passBufs))
		sc := ps.newScratch()
		var small, rotated int
		for i := 0; i < n; i++ {
			bs := ps.view(make([]float64, ps.blockSize()))
			if err := ps.rowGeneral(sc, bs, i); err != nil {
				t.Fatal(err)
			}
			if _, _, _, ok := ps.closeSmall(sc); ok {
				continue
			}
			small++
			half, ok := ps.closeRotated(sc)
			if !ok {
				continue
			}
			rotated++
			dj := append([]float64(nil), sc.dj...)
			qmin := math.Inf(1)
			for _, q := range sc.q[:m] {
				qmin = math.Min(qmin, q)
			}
			half -= qmin // D·qmin/2
			want, err := ps.cauchyBinet(sc, i)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(half-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("ell=%v row %d: ½ log det G %.17g, Cauchy–Binet %.17g", ell, i, half, want)
			}
			for k := range dj {
				if math.Abs(dj[k]-sc.dj[k]) > 1e-12*math.Max(1, math.Abs(sc.dj[k])) {
					t.Errorf("ell=%v row %d: tr(G⁻¹T_%d) %.17g, Cauchy–Binet %.17g", ell, i, k, dj[k], sc.dj[k])
				}
			}
		}
		if small == 0 || rotated < small*9/10 {
			t.Errorf("ell=%v: %d rows fail small2, closeRotated takes %d", ell, small, rotated)
		}
		t.Logf("ell=%v: %d of %d rows fail small2, closeRotated takes %d", ell, small, n, rotated)
	}
}
